import type { OwnerRef } from './owner.js';

export interface Shelf {
  readonly id: string;
  readonly name: string;
  readonly description: string | null;
  readonly isPublic: boolean;
  readonly owner: OwnerRef;
  readonly bookIds: readonly string[];
  readonly bookCount: number;
  readonly createdAt: Date;
  readonly updatedAt: Date;
}

export const SHELF_NAME_MAX = 100;

