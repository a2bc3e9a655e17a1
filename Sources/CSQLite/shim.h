// SQLite's C API (Debian libsqlite3-dev), for the reading history (LectorHistory).
#include <sqlite3.h>
