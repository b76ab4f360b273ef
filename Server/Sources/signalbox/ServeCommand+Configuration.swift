import Configuration
import Foundation
import SignalboxServer

extension ServeCommand {
    /// Reads the settings with one precedence: flags over environment variables over the `--config` file over
    /// the defaults. A value of the wrong type or out of range, or a file key no setting reads, throws naming it.
    func loadSettings(environment: [String: String]) async throws -> ServeSettings {
        let problems = ConfigProblems(environmentName: ConfigEnvironment.variable(for:))
        var providers: [any ConfigProvider] = [
            InMemoryProvider(name: "flags", values: flagValues()), ConfigEnvironment.provider(environment: environment),
        ]
        let path = config ?? environment["SIGNALBOX_CONFIG"].flatMap { $0.isEmpty ? nil : $0 }
        var file: ConfigFile?
        if let path { file = try await ConfigFile.load(path) }
        if let file { providers.append(file.provider) }
        let settings = try ServeSettings(reader: ConfigReader(providers: providers, accessReporter: problems), problems: problems)
        try problems.check()
        let known = problems.keysRead
        if let file, let unknown = file.keys.first(where: { !known.contains($0) }) {
            throw ConfigurationError("unknown configuration key '\(unknown)' in \(file.path) (the README lists every key)")
        }
        return settings
    }

    /// The options given on the command line, under their configuration keys.
    private func flagValues() -> [AbsoluteConfigKey: ConfigValue] {
        var values: [String: ConfigContent] = [:]
        values["host"] = host.map { .string($0) }
        values["port"] = port.map { .int($0) }
        values["dataDir"] = dataDir.map { .string($0) }
        values["database"] = database.map { .string($0) }
        values["leaseSeconds"] = leaseSeconds.map { .int($0) }
        values["apns.simulator"] = apnsSimulator ? .bool(true) : nil
        values["apns.simulatorPort"] = simulatorPort.map { .int($0) }
        values["apns.host"] = apnsHost.map { .string($0) }
        values["apns.port"] = apnsPort.map { .int($0) }
        values["apns.ca"] = apnsCa.map { .string($0) }
        values["tls.certificate"] = tlsCertificate.map { .string($0) }
        values["tls.key"] = tlsKey.map { .string($0) }
        return Dictionary(uniqueKeysWithValues: values.map { key, content in
            (AbsoluteConfigKey(ConfigKey(key)), ConfigValue(content, isSecret: ConfigFile.secretKeys.contains(key)))
        })
    }
}
