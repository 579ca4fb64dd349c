/**
 * An answer in a database's own words — SQLite's or PostgreSQL's error text, which names tables and constraints and
 * is nothing a client can act on. Sync once answered `provider_error` "…: deadlock detected" (2026-11-28).
 */
export const DATABASE_WORDS =
  /SQLITE_[A-Z]|(UNIQUE|FOREIGN KEY|NOT NULL|CHECK) constraint failed|no such (table|column)|database is locked|deadlock detected|duplicate key value|violates (foreign key|unique|not-null|check) constraint|syntax error at or near|could not serialize access/;
