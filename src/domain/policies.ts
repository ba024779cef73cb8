import type { Actor } from './actor.js';
import { hasPermission, isAdmin } from './actor.js';
import type { Book } from './book.js';
import type { Shelf } from './shelf.js';

const owns = (actor: Actor, object: { owner: { id: string } }): boolean => object.owner.id === actor.id;

export const canReadBooks = (actor: Actor): boolean => hasPermission(actor, 'books:read');
export const canUploadBook = (actor: Actor): boolean => hasPermission(actor, 'books:write');
export const canEditBook = (actor: Actor, book: Book): boolean =>
  isAdmin(actor) || (hasPermission(actor, 'books:write') && owns(actor, book));
export const canDeleteBook = (actor: Actor, book: Book): boolean =>
  isAdmin(actor) || (hasPermission(actor, 'books:delete') && owns(actor, book));

export const canReadShelves = (actor: Actor): boolean => hasPermission(actor, 'shelves:read');
/** Whether the shelf is visible at all; an invisible shelf is reported as not found. */
export const canSeeShelf = (actor: Actor, shelf: Shelf): boolean =>
  isAdmin(actor) || (hasPermission(actor, 'shelves:read') && (shelf.isPublic || owns(actor, shelf)));
export const canCreateShelf = (actor: Actor): boolean => hasPermission(actor, 'shelves:write');
export const canEditShelf = (actor: Actor, shelf: Shelf): boolean =>
  isAdmin(actor) || (hasPermission(actor, 'shelves:write') && owns(actor, shelf));

export const canManageUsers = (actor: Actor): boolean => isAdmin(actor);
