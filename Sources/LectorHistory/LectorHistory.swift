// LectorHistory: the reading history, an SQLite database of MATCH messages (Debian's
// libsqlite3 through the CSQLite system-library target, wrapped in one Swift file,
// SQLite.swift).
//
// Owns the database's schema, what makes a file Lector's history (its application_id
// and version), and the queries both lectord (its writer thread and HISTORY replies) and
// `lector history --db` run. May import LectorProtocol and LectorSystem only: no OCR
// engine, V4L2 or libjpeg, so `lector` can read a history file.
