export const DEFAULT_PAGE_SIZE = 20;
export const MAX_PAGE_SIZE = 100;
/** The highest page number a list accepts. */
export const MAX_PAGE = 1_000_000;

export interface PageRequest {
  readonly page: number;
  readonly pageSize: number;
}

export interface Page<T> {
  readonly items: readonly T[];
  readonly total: number;
  readonly page: number;
  readonly pageSize: number;
  readonly totalPages: number;
}

export function pageOf<T>(items: readonly T[], total: number, request: PageRequest): Page<T> {
  return { items, total, page: request.page, pageSize: request.pageSize, totalPages: Math.ceil(total / request.pageSize) };
}

export function offsetOf(request: PageRequest): number {
  return (request.page - 1) * request.pageSize;
}
