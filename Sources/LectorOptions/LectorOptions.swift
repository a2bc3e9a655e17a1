// LectorOptions: one table per program behind its flags, configuration keys, `--help`,
// the man page, docs/configuration.md and (where the program reloads) SIGHUP.
//
// Owns the option's description (`OptionSpec`), how a value is read and checked
// (`ValueParser`) and stored (`OptionAccess`), the table with its lookups (`OptionTable`),
// `--help` (`HelpLayout`), the Markdown reference, and the command line and flat
// `key = value` file of a program whose options set one value (`Option`). What each
// program's options mean stays in the program's own target. May import LectorSystem
// only (UsageError, ArgumentScanner, ConfigText, ConfigError): no C, no protocol.
