/**
 * The API's failures, as the reference server has them: handled failures (`ApiError`) answer
 * `{"code": <status>, "message": ...}` as JSON; malformed or refused requests (`Rejection`: path,
 * query, body, Host, Origin) answer a plain-text message. Both are `LogosError`s.
 */
import { LogosError } from '@logos-ts/shared/errors';

export type ApiErrorCode = 'API_BAD_REQUEST' | 'API_NOT_FOUND' | 'API_FAILED';

export class ApiError extends LogosError {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(status === 400 ? 'API_BAD_REQUEST' : status === 404 ? 'API_NOT_FOUND' : 'API_FAILED', message);
  }
}

/** Statuses of plain-text rejections. */
export type RejectionStatus = 400 | 403 | 413 | 415 | 421 | 422;

const REJECTION_CODES = {
  400: 'API_MALFORMED_REQUEST',
  403: 'API_ORIGIN_NOT_ALLOWED',
  413: 'API_BODY_TOO_LARGE',
  415: 'API_UNSUPPORTED_MEDIA_TYPE',
  421: 'API_HOST_NOT_ALLOWED',
  422: 'API_INVALID_BODY',
} as const satisfies Record<RejectionStatus, string>;

export type RejectionCode = (typeof REJECTION_CODES)[RejectionStatus];

export class Rejection extends LogosError {
  constructor(
    readonly status: RejectionStatus,
    message: string,
  ) {
    super(REJECTION_CODES[status], message);
  }
}

export const notFound = (message = 'Not found') => new ApiError(404, message);
