import Configuration
import Foundation
import SignalboxServer
import Testing

/// The configuration keys the server reads, their environment variables, and the README's table of them.
struct ConfigKeysTests {
    static func keysRead() throws -> Set<String> {
        let problems = ConfigProblems()
        _ = try ServerConfiguration(reader: ConfigReader(provider: InMemoryProvider(values: [:]), accessReporter: problems), problems: problems)
        return problems.keysRead
    }

    /// Every key the server reads is in the README's table with its variable.
    @Test func readmeListsEveryKey() throws {
        let readme = try String(
            contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../../README.md"),
            encoding: .utf8
        )
        let keys = try Self.keysRead()
        #expect(keys.count >= 20)
        for key in keys {
            #expect(readme.contains("| `\(key)`"), "README lacks \(key)")
            #expect(readme.contains("`\(ConfigEnvironment.variable(for: key))`"), "README lacks the variable of \(key)")
        }
    }

    /// Each key's variable is the documented one.
    @Test(arguments: [
        ("host", "SIGNALBOX_HOST"), ("dataDir", "SIGNALBOX_DATA_DIR"), ("adminKey", "SIGNALBOX_ADMIN_KEY"),
        ("database", "SIGNALBOX_DATABASE_URL"), ("delivery.maxInFlight", "SIGNALBOX_MAX_IN_FLIGHT"),
        ("delivery.retryBaseMs", "SIGNALBOX_RETRY_BASE_MS"), ("delivery.apnsPauseMs", "SIGNALBOX_APNS_PAUSE_MS"),
        ("quotas.maxEnumeratorsPerInstallation", "SIGNALBOX_MAX_ENUMERATORS_PER_INSTALLATION"),
        ("connections.headerTimeout", "SIGNALBOX_HEADER_TIMEOUT"), ("tls.certificate", "SIGNALBOX_TLS_CERTIFICATE"),
        ("apns.simulator", "SIGNALBOX_APNS_SIMULATOR"), ("log.format", "LOG_FORMAT"),
    ])
    func environmentNames(key: String, variable: String) {
        #expect(ConfigEnvironment.variable(for: key) == variable)
    }

    /// The in-flight slots and page size default alike on both backends (issue 29); a set value wins on either.
    @Test func deliveryDefaultsAreTheSameOnBothBackends() throws {
        func read(_ environment: [String: String]) throws -> (inFlight: Int, page: Int) {
            let problems = ConfigProblems()
            let configuration = try ServerConfiguration(
                reader: ConfigReader(provider: ConfigEnvironment.provider(environment: environment), accessReporter: problems), problems: problems
            )
            return (configuration.delivery.maxInFlight, configuration.delivery.fanOutBatch)
        }
        let postgres = "postgres://u:p@127.0.0.1/db"
        #expect(try read([:]) == (1_000, 500), "the embedded SQLite")
        #expect(try read(["SIGNALBOX_DATABASE_URL": postgres]) == (1_000, 500), "PostgreSQL")
        #expect(try read(["SIGNALBOX_MAX_IN_FLIGHT": "64", "SIGNALBOX_FAN_OUT_BATCH": "10"]) == (64, 10))
        #expect(try read(["SIGNALBOX_DATABASE_URL": postgres, "SIGNALBOX_MAX_IN_FLIGHT": "64"]) == (64, 500))
    }

    /// A secret read from the environment is redacted wherever the reader's providers are printed.
    @Test func secretsAreRedacted() throws {
        let provider = ConfigEnvironment.provider(environment: [
            "SIGNALBOX_ADMIN_KEY": "sba_secret-admin-key-value-0123456789", "SIGNALBOX_DATABASE_URL": "postgres://u:pw-hunter2@h/db",
        ])
        let problems = ConfigProblems()
        let configuration = try ServerConfiguration(reader: ConfigReader(provider: provider, accessReporter: problems), problems: problems)
        #expect(configuration.adminKey == "sba_secret-admin-key-value-0123456789")
        #expect(configuration.database == "postgres://u:pw-hunter2@h/db")
        let printed = "\(provider) \(String(reflecting: provider))"
        #expect(!printed.contains("hunter2") && !printed.contains("secret-admin-key"), "\(printed)")
    }
}
