/** Migration 1, as released: the schema every later migration starts from (never edited). */
export const INITIAL_SCHEMA = `
CREATE TABLE users (
  id TEXT PRIMARY KEY,
  username TEXT NOT NULL,
  username_key TEXT NOT NULL UNIQUE,
  email TEXT NOT NULL,
  email_key TEXT NOT NULL UNIQUE,
  password_hash TEXT,
  roles TEXT NOT NULL,
  auth_provider TEXT NOT NULL,
  oidc_issuer TEXT,
  oidc_subject TEXT,
  disabled INTEGER NOT NULL,
  token_version INTEGER NOT NULL,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  UNIQUE (oidc_issuer, oidc_subject)
);
CREATE INDEX users_created ON users (created_at, id);

CREATE TABLE token_revocations (jti TEXT PRIMARY KEY, expires_at INTEGER NOT NULL);
CREATE INDEX token_revocations_expiry ON token_revocations (expires_at);

CREATE TABLE login_throttle (
  key TEXT PRIMARY KEY,
  failures INTEGER NOT NULL,
  window_started_at INTEGER NOT NULL,
  blocked_until INTEGER,
  blocks INTEGER NOT NULL
);

CREATE TABLE books (
  seq INTEGER PRIMARY KEY,
  id TEXT NOT NULL UNIQUE,
  title TEXT NOT NULL,
  title_key TEXT NOT NULL,
  author_key TEXT,
  authors TEXT NOT NULL,
  tags TEXT NOT NULL,
  description TEXT,
  publisher TEXT,
  language TEXT,
  published TEXT,
  isbn TEXT,
  series TEXT,
  series_index REAL,
  format TEXT NOT NULL,
  file_name TEXT NOT NULL,
  file_size INTEGER NOT NULL,
  sha256 TEXT NOT NULL UNIQUE,
  cover_media_type TEXT,
  owner_id TEXT NOT NULL,
  owner_username TEXT NOT NULL,
  search_text TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
);
CREATE INDEX books_title ON books (title_key, id);
CREATE INDEX books_author_asc ON books (author_key IS NULL, author_key, id);
CREATE INDEX books_author_desc ON books (author_key IS NULL, author_key DESC, id DESC);
CREATE INDEX books_added ON books (created_at, id);
CREATE INDEX books_published_asc ON books (published IS NULL, published, id);
CREATE INDEX books_published_desc ON books (published IS NULL, published DESC, id DESC);
CREATE INDEX books_format ON books (format, created_at, id);
CREATE INDEX books_owner ON books (owner_id);

CREATE TABLE book_authors (
  book_id TEXT NOT NULL REFERENCES books (id) ON DELETE CASCADE,
  position INTEGER NOT NULL,
  name TEXT NOT NULL,
  name_key TEXT NOT NULL,
  PRIMARY KEY (book_id, position)
) WITHOUT ROWID;
CREATE INDEX book_authors_name ON book_authors (name_key, book_id);

CREATE TABLE book_tags (
  book_id TEXT NOT NULL REFERENCES books (id) ON DELETE CASCADE,
  position INTEGER NOT NULL,
  tag TEXT NOT NULL,
  tag_key TEXT NOT NULL,
  PRIMARY KEY (book_id, position)
) WITHOUT ROWID;
CREATE INDEX book_tags_tag ON book_tags (tag_key, book_id);

CREATE VIRTUAL TABLE book_search USING fts5 (
  search_text, content = 'books', content_rowid = 'seq', tokenize = 'trigram'
);
CREATE TRIGGER books_search_insert AFTER INSERT ON books BEGIN
  INSERT INTO book_search (rowid, search_text) VALUES (new.seq, new.search_text);
END;
CREATE TRIGGER books_search_delete AFTER DELETE ON books BEGIN
  INSERT INTO book_search (book_search, rowid, search_text) VALUES ('delete', old.seq, old.search_text);
END;
CREATE TRIGGER books_search_update AFTER UPDATE OF search_text ON books BEGIN
  INSERT INTO book_search (book_search, rowid, search_text) VALUES ('delete', old.seq, old.search_text);
  INSERT INTO book_search (rowid, search_text) VALUES (new.seq, new.search_text);
END;

CREATE TABLE shelves (
  id TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  name_key TEXT NOT NULL,
  description TEXT,
  is_public INTEGER NOT NULL,
  owner_id TEXT NOT NULL,
  owner_username TEXT NOT NULL,
  book_count INTEGER NOT NULL DEFAULT 0,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  UNIQUE (owner_id, name_key)
);
CREATE INDEX shelves_name ON shelves (name_key, id);
CREATE INDEX shelves_public ON shelves (is_public, name_key, id);

CREATE TABLE shelf_books (
  shelf_id TEXT NOT NULL REFERENCES shelves (id) ON DELETE CASCADE,
  book_id TEXT NOT NULL REFERENCES books (id) ON DELETE CASCADE,
  position INTEGER NOT NULL,
  PRIMARY KEY (shelf_id, book_id)
) WITHOUT ROWID;
CREATE UNIQUE INDEX shelf_books_order ON shelf_books (shelf_id, position);
CREATE INDEX shelf_books_book ON shelf_books (book_id);
CREATE TRIGGER shelf_books_count_insert AFTER INSERT ON shelf_books BEGIN
  UPDATE shelves SET book_count = book_count + 1 WHERE id = new.shelf_id;
END;
CREATE TRIGGER shelf_books_count_delete AFTER DELETE ON shelf_books BEGIN
  UPDATE shelves SET book_count = book_count - 1 WHERE id = old.shelf_id;
END;
`;
