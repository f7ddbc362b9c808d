package binlogapply

import (
	"fmt"
	"testing"
	"time"

	"github.com/go-ghostlite/go-ghostlite/internal/dbconn"
	"github.com/go-ghostlite/go-ghostlite/internal/testenv"
)

// The binlog stream (and the source session it opens) logs in with MySQL's default
// caching_sha2_password, whose first login after FLUSH PRIVILEGES is a full authentication: over
// plain TCP (the password travels encrypted with the server's RSA key) and over TLS, with an
// account that requires it (so the stream cannot have gone plaintext).
func TestBinlogStreamCachingSHA2(t *testing.T) {
	testenv.OnlyMySQL(t, "caching_sha2_password is MySQL's authentication plugin")
	for i, useTLS := range []bool{false, true} {
		t.Run(fmt.Sprintf("tls=%v", useTLS), func(t *testing.T) {
			admin := testenv.Open(t, testenv.PrimaryConfig(), "")
			user := fmt.Sprintf("gl_sha2_%d", i)
			require := ""
			src := testenv.PrimaryConfig()
			src.User, src.Password = user, "Sha2-pw-"+user
			if useTLS {
				require = " REQUIRE SSL"
				// The sandbox's certificate is MySQL's self-signed one, made for no host name.
				tlsCfg, err := dbconn.LoadTLS("", "", "", true)
				if err != nil {
					t.Fatal(err)
				}
				src.TLS = tlsCfg
			}
			testenv.Exec(t, admin, "DROP USER IF EXISTS "+user+"@'%'",
				"CREATE USER "+user+"@'%' IDENTIFIED WITH caching_sha2_password BY '"+src.Password+"'"+require,
				"GRANT REPLICATION SLAVE, REPLICATION CLIENT ON *.* TO "+user+"@'%'",
				"FLUSH PRIVILEGES") // empties the cache: the next login is a full authentication
			t.Cleanup(func() { _, _ = admin.Exec("DROP USER IF EXISTS " + user + "@'%'") })
			f := newFixture(t, fmt.Sprintf("sha2_%d", i), `CREATE TABLE %s (id INT PRIMARY KEY, v INT)`,
				fixtureOpts{source: &src})
			f.exec(`INSERT INTO {T} VALUES (1, 1), (2, 2)`, `UPDATE {T} SET v = 5 WHERE id = 1`, `DELETE FROM {T} WHERE id = 2`)
			f.sentinel(20 * time.Second)
			f.compare([]string{"id", "v"}, []string{"id", "v"}, "id", "id")
		})
	}
}
