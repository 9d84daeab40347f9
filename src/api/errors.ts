/**
 * The API's two kinds of failure, as the reference server has them:
 * handled failures answer `{"code": <status>, "message": ...}` as JSON; malformed requests (path,
 * query, body) answer a plain-text message with 400, 415 or 422.
 */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

export class Rejection extends Error {
  constructor(
    readonly status: 400 | 413 | 415 | 422,
    message: string,
  ) {
    super(message);
  }
}

export const notFound = (message = 'Not found') => new ApiError(404, message);
