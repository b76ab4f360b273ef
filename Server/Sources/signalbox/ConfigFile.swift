import Configuration
import Foundation
import SignalboxServer
import SystemPackage
import Yams

/// A `--config` file (YAML or JSON by its extension): its provider, and the dotted keys it sets, so that a
/// key no setting reads (a typo) stops the start instead of being ignored.
struct ConfigFile {
    /// Keys whose values are secrets, redacted wherever the provider is printed.
    static let secretKeys: Set<String> = ["adminKey", "masterKey", "metricsKey", "database", "apns.proxy"]

    let path: String
    let provider: any ConfigProvider
    let keys: [String]

    static func load(_ path: String) async throws(ConfigurationError) -> ConfigFile {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ConfigurationError("cannot read the configuration file \(path)")
        }
        let isYAML = path.hasSuffix(".yaml") || path.hasSuffix(".yml")
        guard isYAML || path.hasSuffix(".json") else {
            throw ConfigurationError("the configuration file \(path) must end in .yaml, .yml or .json")
        }
        do {
            let tree: Any? = isYAML
                ? try Yams.load(yaml: String(decoding: data, as: UTF8.self))
                : try JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])
            guard tree == nil || tree is [String: Any] else {
                throw ConfigurationError("the configuration file \(path) must hold a mapping of keys to values")
            }
            let keys = flatten(tree as? [String: Any] ?? [:], prefix: "")
            let filePath = FilePath(path)
            let provider: any ConfigProvider
            if tree == nil {
                // A file of only comments sets nothing (the YAML provider refuses an empty document).
                provider = InMemoryProvider(name: path, values: [:])
            } else if isYAML {
                provider = try await FileProvider<YAMLSnapshot>(
                    parsingOptions: .init(secretsSpecifier: .specific(secretKeys)), filePath: filePath
                )
            } else {
                provider = try await FileProvider<JSONSnapshot>(
                    parsingOptions: .init(secretsSpecifier: .specific(secretKeys)), filePath: filePath
                )
            }
            return ConfigFile(path: path, provider: provider, keys: keys)
        } catch let error as ConfigurationError {
            throw error
        } catch {
            throw ConfigurationError("the configuration file \(path) is not valid \(isYAML ? "YAML" : "JSON")")
        }
    }

    /// The dotted paths of the leaves of `tree` (a nested mapping counts as a section, anything else as a value).
    private static func flatten(_ tree: [String: Any], prefix: String) -> [String] {
        tree.sorted { $0.key < $1.key }.flatMap { key, value in
            let path = prefix + key
            if let section = value as? [String: Any] { return flatten(section, prefix: path + ".") }
            return [path]
        }
    }
}
