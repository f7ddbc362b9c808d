package main

import "errors"

// The flag table (flagtable.go): the server, the topology and the credentials.

var connectionTopic = flagTopic{"Connection and topology", []flagSpec{
	{name: "host", ghost: ghostSame, to: "Conn.Host",
		help: "server to connect to; its binary log is read (a replica, or the primary with --allow-on-master)"},
	{name: "port", ghost: ghostSame, to: "Conn.Port", rng: span(1, 65535),
		help: "port of --host"},
	{name: "user", ghost: ghostSame, to: "Conn.User",
		help: "user name (overrides the one in --conf)"},
	{name: "password", ghost: ghostSame, to: "Conn.Password",
		help: "password (overrides the one in --conf)"},
	{name: "ask-pass", ghost: ghostSame, note: "see [Security](#security)", own: func(v *flagValues) any { return &v.security.askPass },
		help: "read the password from the terminal (not echoed) instead of --password, --conf or " + passwordEnv},
	{name: "conf", ghost: ghostDiffers, note: "only `user` and `password` of `[client]` are read (gh-ost also parses, and never applies, `[osc]`); no `${ENV}` expansion; no SIGHUP re-read", own: func(v *flagValues) any { return &v.conf },
		help: "my.cnf-style file whose [client] section gives user and password"},
	{name: "master-user", ghost: ghostSame, note: "see [Security](#security)", to: "MasterUser",
		help: "user on the primary, when it differs from --user (needs --assume-master-host)"},
	{name: "master-password", ghost: ghostSame, note: "see [Security](#security)", to: "MasterPassword",
		help: "password on the primary, when it differs (needs --assume-master-host; or " + masterPasswordEnv + ")"},
	{name: "assume-master-host", ghost: ghostSame, to: "AssumeMasterHost",
		help: "host[:port] of the primary, instead of finding it from the replica"},
	{name: "allow-on-master", ghost: ghostSame, to: "AllowOnMaster",
		help: "allow --host to be the primary (read its binary log instead of a replica's)"},
	{name: "migrate-on-replica", ghost: ghostSame, to: "MigrateOnReplica",
		help: "run the whole migration on the replica given by --host (tables created, copied and cut over there)"},
	{name: "test-on-replica", ghost: ghostDiffers, note: "replication is left stopped after the swap back", to: "TestOnReplica",
		help: "test the migration on the replica: stop replication, cut over, then swap the tables back (both kept for comparison)"},
	{name: "test-on-replica-skip-replica-stop", ghost: ghostSame, to: "TestOnReplicaSkipReplicaStop",
		help: "with --test-on-replica, do not stop replication (it is already stopped or must not be)"},
	{name: "assume-rbr", ghost: ghostSame, to: "AssumeRBR",
		help: "do not check binlog_format on --host (row-based binary logs are still required)"},
	{name: "switch-to-rbr", ghost: ghostSame, note: "`SET GLOBAL binlog_format='ROW'` on the inspected replica and a replication restart; refused when it has replicas; never switched back", to: "SwitchToRBR",
		help: "when the inspected replica's binlog_format is not ROW, set it to ROW and restart its replication (refused if it has replicas)"},
	{name: "gtid", ghost: ghostSame, to: "UseGTID",
		help: "position the binary log reader by GTID instead of file and position"},
	{name: "replica-server-id", ghost: ghostSame, to: "ReplicaServerID", check: func(t flagTargets) error {
		if t.cfg.ReplicaServerID == 0 {
			return errors.New("--replica-server-id must not be 0")
		}
		return nil
	},
		help: "server id of the binary log reader; must be unique among the servers' replicas"},
	{name: "binlogsyncer-max-reconnect-attempts", ghost: ghostDiffers, note: "0 means the default bound (10), not \"no limit\"", to: "BinlogReconnectAttempts", rng: span(0, 1_000_000),
		help: "consecutive failed reconnections of the binary log reader before the migration fails (0: 10; gh-ost's 0 means no limit)"},
	{name: "mysql-timeout", ghost: ghostDiffers, note: "seconds, the connect and handshake timeout only: reads and writes get no driver timeout, since a lock wait or a long chunk must not be cut by the driver (every wait of the tool has its own bound)", to: "Conn.Timeout", unit: fractionalSeconds, rng: span(0, 3600),
		help: "bound of the connect and the MySQL handshake of every connection, in seconds (0: 10 seconds); unlike gh-ost, reads and writes have no driver timeout"},
	{name: "charset", ghost: ghostIgnored, note: "every connection uses the binary character set so that no value is converted on the way", own: discardString},
	{name: "skip-port-validation", ghost: ghostIgnored, note: "go-ghostlite does not compare @@port with --port, so there is nothing to skip", own: discardBool},
	{name: "allow-master-master", ghost: ghostIgnored, note: "go-ghostlite writes to the inspected server's direct source and never crawls further up, so a master-master cycle is not refused and there is nothing to allow", own: discardBool},
	{name: "tungsten", ghost: ghostSame, note: "the inspected replica need not have `log_slave_updates`", to: "Tungsten",
		help: "the inspected replica is fed by Tungsten: do not require log_slave_updates (use with --assume-master-host)"},
	{name: "aliyun-rds", ghost: ghostIgnored, note: "go-ghostlite never reads @@port nor derives the server's identity from its host name, which is all gh-ost changes for Aliyun RDS", own: discardBool},
	{name: "gcp", ghost: ghostIgnored, note: "go-ghostlite never reads @@port nor derives the server's identity from its host name, which is all gh-ost changes for Cloud SQL", own: discardBool},
	{name: "azure", ghost: ghostIgnored, note: "go-ghostlite never reads @@port nor derives the server's identity from its host name, which is all gh-ost changes for Azure (give --assume-rbr and --assume-master-host as gh-ost's docs say)", own: discardBool},
}}

var securityTopic = flagTopic{"Security (TLS)", []flagSpec{
	{name: "ssl", ghost: ghostSame, note: "see [Security](#security)", own: func(v *flagValues) any { return &v.security.ssl },
		help: "connect to every server over TLS, verified against the system CA pool or --ssl-ca"},
	{name: "ssl-ca", ghost: ghostSame, note: "see [Security](#security)", own: func(v *flagValues) any { return &v.security.sslCA },
		help: "PEM file of the CA(s) that signed the servers' certificates (needs --ssl)"},
	{name: "ssl-cert", ghost: ghostSame, note: "see [Security](#security)", own: func(v *flagValues) any { return &v.security.sslCert },
		help: "PEM file of the client certificate, with --ssl-key (needs --ssl)"},
	{name: "ssl-key", ghost: ghostSame, note: "see [Security](#security)", own: func(v *flagValues) any { return &v.security.sslKey },
		help: "PEM file of the client certificate's private key (needs --ssl)"},
	{name: "ssl-allow-insecure", ghost: ghostSame, note: "see [Security](#security)", own: func(v *flagValues) any { return &v.security.sslAllowInsecure },
		help: "with --ssl, do not verify the server's certificate chain and host name (encrypted, not authenticated)"},
}}
