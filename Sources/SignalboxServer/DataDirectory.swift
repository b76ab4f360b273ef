import Foundation
import Logging

/// The data directory: the SQLite file and the generated admin and master keys (mode 0600).
public struct DataDirectory: Sendable {
    public let path: String

    public init(path: String) throws {
        self.path = path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
    }

    public var databasePath: String { path + "/signalbox.sqlite" }
    public var adminKeyPath: String { path + "/admin.key" }
    public var masterKeyPath: String { path + "/master.key" }

    /// The admin key: `configured`, else the one stored here, else a new one stored here (0600).
    public func adminKey(configured: String?, logger: Logger) throws -> String {
        if let configured { return configured }
        return try secretFile(adminKeyPath, what: "admin key", logger: logger) { Secret.generate(prefix: "sba_") }
    }

    /// The master key (32 bytes): `configured` (base64), else stored here, else generated here (0600).
    public func masterKey(configured: String?, logger: Logger) throws -> [UInt8] {
        let text = try configured ?? secretFile(masterKeyPath, what: "master key", logger: logger) {
            Data(Secret.randomBytes(32)).base64EncodedString()
        }
        guard let bytes = Data(base64Encoded: text.trimmingCharacters(in: .whitespacesAndNewlines)), bytes.count == 32 else {
            throw ConfigurationError("the master key must be base64 of 32 bytes")
        }
        return Array(bytes)
    }

    private func secretFile(_ file: String, what: String, logger: Logger, generate: () -> String) throws -> String {
        if let existing = FileManager.default.contents(atPath: file) {
            return String(decoding: existing, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        }
        let value = generate()
        guard FileManager.default.createFile(atPath: file, contents: Data((value + "\n").utf8), attributes: [.posixPermissions: 0o600]) else {
            throw ConfigurationError("cannot write the \(what) to \(file)")
        }
        logger.notice("generated a new \(what)", metadata: ["path": "\(file)"])
        return value
    }
}
