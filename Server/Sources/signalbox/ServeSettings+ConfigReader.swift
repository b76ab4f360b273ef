import Configuration
import Logging
import SignalboxAPNsHTTP2
import SignalboxServer

extension ServeSettings {
    /// Reads every key of `signalbox serve` (the server's, plus `apns.simulator`, `apns.simulatorPort`,
    /// `apns.host`, `apns.port`, `apns.ca`, `apns.proxy`, `log.level`, `log.format`); a wrong value throws naming its key.
    init(reader: ConfigReader, problems: ConfigProblems) throws(ConfigurationError) {
        self.init()
        server = try ServerConfiguration(reader: reader, problems: problems)
        apns.simulator = reader.bool(forKey: "apns.simulator", default: apns.simulator)
        apns.simulatorPort = try Self.port(reader, "apns.simulatorPort", default: apns.simulatorPort, problems: problems)
        apns.host = reader.string(forKey: "apns.host").flatMap { $0.isEmpty ? nil : $0 }
        apns.port = try Self.port(reader, "apns.port", default: apns.port, problems: problems)
        apns.ca = reader.string(forKey: "apns.ca").flatMap { $0.isEmpty ? nil : $0 }
        if let proxy = reader.string(forKey: "apns.proxy", isSecret: true), !proxy.isEmpty {
            do {
                apns.proxy = try HTTP2Transport.Proxy.parse(proxy)
            } catch {
                throw ConfigurationError("bad configuration value: \(problems.describe("apns.proxy")): \(error)")
            }
        }
        let level = reader.string(forKey: "log.level", default: logLevel.rawValue)
        guard let parsedLevel = Logger.Level(rawValue: level) else {
            throw ConfigurationError(
                "bad configuration value: \(problems.describe("log.level")): must be one of \(Logger.Level.allCases.map(\.rawValue).joined(separator: ", "))"
            )
        }
        logLevel = parsedLevel
        let format = reader.string(forKey: "log.format", default: logFormat.rawValue)
        guard let parsedFormat = LogFormat(rawValue: format) else {
            throw ConfigurationError("bad configuration value: \(problems.describe("log.format")): must be text or json")
        }
        logFormat = parsedFormat
    }

    private static func port(
        _ reader: ConfigReader, _ key: String, default value: Int, problems: ConfigProblems
    ) throws(ConfigurationError) -> Int {
        let port = reader.int(forKey: ConfigKey(key), default: value)
        guard (1...65_535).contains(port) else {
            throw ConfigurationError("bad configuration value: \(problems.describe(key)): must be from 1 to 65535")
        }
        return port
    }
}
