import Foundation
import Logging
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The data directory: the SQLite file and the generated admin and master keys.
///
/// Only the server's user may read it: the directory is made 0700 (also when it already exists), every file in
/// it 0600, and the database is created 0600 before SQLite opens it, so its `-wal` and `-shm` files get the same
/// mode. A key file that group or others can read stops the start: the secret may already have leaked.
public struct DataDirectory: Sendable {
    public let path: String

    /// Creates or secures the directory.
    /// - Throws: `ConfigurationError` naming the file when the directory cannot be made private or a key file
    ///   is open to group or others.
    public init(path: String) throws {
        self.path = path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        guard chmod(path, 0o700) == 0 else {
            throw ConfigurationError("cannot make the data directory \(path) private (chmod 700): \(String(cString: strerror(errno)))")
        }
        for file in [adminKeyPath, masterKeyPath] {
            if let mode = Self.mode(of: file), mode & 0o077 != 0 {
                throw ConfigurationError(
                    "the key file \(file) is readable by group or others (mode \(String(mode, radix: 8))); "
                        + "run chmod 600 \(file) and consider the key leaked (rotate it)"
                )
            }
        }
        try restrictFiles()
        let database = open(databasePath, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        if database >= 0 { close(database) }
    }

    public var databasePath: String { path + "/signalbox.sqlite" }
    public var adminKeyPath: String { path + "/admin.key" }
    public var masterKeyPath: String { path + "/master.key" }

    /// Makes every regular file in the directory 0600 (a database or `-wal` left by an older version may be 0644).
    public func restrictFiles() throws {
        for name in try FileManager.default.contentsOfDirectory(atPath: path) {
            let file = path + "/" + name
            guard let mode = Self.mode(of: file), mode & 0o077 != 0 else { continue }
            guard chmod(file, 0o600) == 0 else { throw ConfigurationError("cannot make \(file) private (chmod 600)") }
        }
    }

    /// The admin key: `configured` (at least 32 characters), else the one stored here, else a new one stored here.
    public func adminKey(configured: String?, logger: Logger) throws -> String {
        if let configured {
            guard configured.count >= 32 else {
                throw ConfigurationError("the admin key (SIGNALBOX_ADMIN_KEY) must be at least 32 characters, e.g. from `openssl rand -base64 32`")
            }
            return configured
        }
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

    /// Reads `file`, or creates it exclusively with mode 0600 (never a moment with wider permissions).
    private func secretFile(_ file: String, what: String, logger: Logger, generate: () -> String) throws -> String {
        let value = generate()
        let descriptor = open(file, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            guard errno == EEXIST, let existing = FileManager.default.contents(atPath: file) else {
                throw ConfigurationError("cannot write the \(what) to \(file): \(String(cString: strerror(errno)))")
            }
            return String(decoding: existing, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        }
        defer { close(descriptor) }
        let bytes = Array((value + "\n").utf8)
        let written = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        guard written == bytes.count, fsync(descriptor) == 0 else {
            unlink(file)
            throw ConfigurationError("cannot write the \(what) to \(file)")
        }
        logger.notice("generated a new \(what)", metadata: ["path": "\(file)"])
        return value
    }

    /// Permission bits of `file`, or `nil` when it does not exist or is not a regular file.
    private static func mode(of file: String) -> mode_t? {
        var info = stat()
        guard stat(file, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return nil }
        return info.st_mode & 0o777
    }
}
