import ClearanceServerPostgres
import Testing

@Suite("Backplane configuration")
struct BackplaneConfigurationTests {
    @Test func readsAPostgresURL() throws {
        let configuration = try PostgresBackplaneConfiguration(url: "postgres://clearance:s%40cret@db.internal:6543/hubs?namespace=staging", clusterKey: .test)
        #expect(configuration.connection.host == "db.internal")
        #expect(configuration.connection.port == 6543)
        #expect(configuration.connection.username == "clearance")
        #expect(configuration.connection.password == "s@cret")
        #expect(configuration.connection.database == "hubs")
        #expect(configuration.namespace == "staging")
        #expect(configuration.description == "postgres://clearance@db.internal:6543/hubs (namespace staging)")
        #expect(try PostgresBackplaneConfiguration(url: "postgresql://u@localhost/d", clusterKey: .test).connection.port == 5432)
    }

    @Test func noTextFormShowsThePassword() throws {
        let configuration = try PostgresBackplaneConfiguration(url: "postgres://clearance:hunter2-LEAK@db.internal/hubs", clusterKey: .test)
        var dumped = ""
        dump(configuration, to: &dumped)
        for text in [configuration.description, String(reflecting: configuration), dumped, "\(configuration)"] {
            #expect(!text.contains("LEAK"), "\(text)")
        }
    }

    @Test func aPasswordHoldingPercentIsDecodedOnce() throws {
        #expect(try PostgresBackplaneConfiguration(url: "postgres://u:100%25@h/d", clusterKey: .test).connection.password == "100%")
        #expect(try PostgresBackplaneConfiguration(url: "postgres://u:p%2541@h/d", clusterKey: .test).connection.password == "p%41")
        #expect(try PostgresBackplaneConfiguration(url: "postgres://u@h/d", clusterKey: .test).connection.password == nil)
    }

    @Test(arguments: [
        ("http://u@host/db", "scheme"),
        ("postgres://host/db", "user"),
        ("postgres://u@host", "one database"),
        ("postgres://u@host/db?sslmode=verify-full", "sslmode"),
        ("postgres://u@host/db?pool=3", "unknown query item"),
        ("postgres://u@host/db?queue_limit=many", "queue_limit must be a whole number"),
        ("not a url at all", "expected"),
    ])
    func refusesWhatItCannotUse(_ url: String, _ reason: String) {
        #expect {
            try PostgresBackplaneConfiguration(url: url, clusterKey: .test)
        } throws: { error in
            (error as? PostgresBackplaneError)?.code == .invalidURL && (error as? PostgresBackplaneError)?.message.contains(reason) == true
        }
    }

    @Test func theQueueLimitComesFromTheURLAndIsBounded() throws {
        #expect(try PostgresBackplaneConfiguration(url: "postgres://u@host/db", clusterKey: .test).queueLimit == 100_000)
        #expect(try PostgresBackplaneConfiguration(url: "postgres://u@host/db?queue_limit=250", clusterKey: .test).queueLimit == 250)
        for refused in ["0", "-1", "10000001"] {
            #expect(throws: PostgresBackplaneError.invalidSetting("queueLimit")) {
                try PostgresBackplaneConfiguration(url: "postgres://u@host/db?queue_limit=\(refused)", clusterKey: .test)
            }
        }
        #expect(PostgresBackplaneError.invalidSetting("queueLimit").message.contains("1 to 10,000,000"))
    }

    @Test func refusesAnUnsafeNamespaceAndTimings() {
        #expect(throws: PostgresBackplaneError.invalidSetting("namespace")) {
            try PostgresBackplaneConfiguration(url: "postgres://u@host/db?namespace=x;drop", clusterKey: .test)
        }
        #expect(throws: PostgresBackplaneError.invalidSetting("nodeTimeout")) {
            try PostgresBackplaneConfiguration(
                connection: PostgresBackplaneConfiguration(url: "postgres://u@host/db", clusterKey: .test).connection, clusterKey: .test,
                heartbeatInterval: .seconds(10), nodeTimeout: .seconds(15))
        }
    }

    @Test(arguments: [
        ("heartbeatInterval", Duration.zero, Duration.seconds(15), Duration.seconds(1)),
        ("heartbeatInterval", .seconds(301), .seconds(1_000), .seconds(1)),
        ("nodeTimeout", .seconds(5), .seconds(1_801), .seconds(1)),
        ("nodeTimeout", .seconds(5), .seconds(1e15), .seconds(1)),
        ("reconnectDelay", .seconds(5), .seconds(15), .zero),
        ("reconnectDelay", .seconds(5), .seconds(15), .seconds(301)),
    ])
    func refusesTimingsOutOfRangeAndSaysTheRange(_ name: String, _ heartbeat: Duration, _ timeout: Duration, _ reconnect: Duration) throws {
        let connection = try PostgresBackplaneConfiguration(url: "postgres://u@host/db", clusterKey: .test).connection
        let error = #expect(throws: PostgresBackplaneError.self) {
            try PostgresBackplaneConfiguration(connection: connection, clusterKey: .test, heartbeatInterval: heartbeat, nodeTimeout: timeout, reconnectDelay: reconnect)
        }
        #expect(error == .invalidSetting(name))
        #expect(error?.message.contains("at most") == true, "\(error?.message ?? "")")
    }

    @Test func acceptsTheLargestTimings() throws {
        let configuration = try PostgresBackplaneConfiguration(
            connection: try PostgresBackplaneConfiguration(url: "postgres://u@host/db", clusterKey: .test).connection, clusterKey: .test,
            heartbeatInterval: .seconds(300), nodeTimeout: .seconds(1_800), reconnectDelay: .seconds(300))
        #expect(configuration.nodeTimeout == .seconds(1_800))
    }
}
