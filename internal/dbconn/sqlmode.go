package dbconn

import "strings"

// The writers' sql_mode (Config.WriterMode) is the tool's own (WriterSQLMode), not the server's:
// the tool builds its statements and binds its values itself, so the flags that change how a
// statement is read must not follow the server. The flags that change what a statement stores
// from the same values must, or the copy and the applier store other values than the server's own
// ALTER, which runs in the server's global sql_mode (issue 29.3). Each flag of either server:
//
//	TIME_TRUNCATE_FRACTIONAL (MySQL)   carried: a fraction beyond a column's precision is cut
//	                                   instead of rounded (.999999 in DATETIME(2): .99, not the
//	                                   next second)
//	TIME_ROUND_FRACTIONAL (MariaDB)    carried: the reverse, MariaDB truncates without it
//	STRICT_ALL_TABLES, STRICT_TRANS_TABLES   the writers are strict always (a narrowing fails
//	                                   instead of truncating); --skip-strict-mode relaxes the DDL only
//	NO_ZERO_DATE, NO_ZERO_IN_DATE      carried as Config.NoZeroDate/NoZeroInDate (plan.ZeroDateChecks)
//	NO_AUTO_VALUE_ON_ZERO              always set: a copied 0 stays 0 (preflight refuses a new
//	                                   AUTO_INCREMENT over zeros the server's ALTER would number)
//	ERROR_FOR_DIVISION_BY_ZERO, NO_ENGINE_SUBSTITUTION   always set (no effect on copied values)
//	PAD_CHAR_TO_FULL_LENGTH            dropped: it changes how a CHAR is read, which the copy
//	                                   reproduces itself (Plan.PadChar, table.HasPadChar)
//	EMPTY_STRING_IS_NULL (MariaDB)     dropped: it reads the literal '' as NULL; the applier binds
//	                                   values as literals, the server's ALTER copies '' as ''
//	NO_BACKSLASH_ESCAPES, ANSI_QUOTES, PIPES_AS_CONCAT, IGNORE_SPACE, HIGH_NOT_PRECEDENCE,
//	ONLY_FULL_GROUP_BY, NO_DIR_IN_CREATE, NO_KEY_OPTIONS, NO_TABLE_OPTIONS, NO_FIELD_OPTIONS,
//	NO_UNSIGNED_SUBTRACTION, REAL_AS_FLOAT, SIMULTANEOUS_ASSIGNMENT, ANSI, TRADITIONAL, ORACLE,
//	MSSQL, DB2, MAXDB, POSTGRESQL, MYSQL323, MYSQL40, ALLOW_INVALID_DATES
//	                                   dropped: how the tool's own statements are parsed or shown
//	                                   (the combination modes ANSI, TRADITIONAL, ORACLE... are
//	                                   reported expanded by @@sql_mode); ALLOW_INVALID_DATES only
//	                                   loosens a check the strict writers keep (such a date fails)

// valueModes are the flags carried from the server's sql_mode into the writers.
var valueModes = []string{"TIME_TRUNCATE_FRACTIONAL", "TIME_ROUND_FRACTIONAL"}

// ValueModes returns the flags of sql_mode mode that change what a statement stores (the
// writers carry them through Config.ValueModes).
func ValueModes(mode string) []string {
	var out []string
	for _, m := range strings.Split(strings.ToUpper(mode), ",") {
		m = strings.TrimSpace(m)
		for _, v := range valueModes {
			if m == v {
				out = append(out, v)
			}
		}
	}
	return out
}
