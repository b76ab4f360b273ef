import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The sync state as a JSON file in a directory (the app group container), shared by the app and its
/// extensions: every update holds an exclusive `flock` on a lock file beside it, reads the file, and
/// replaces it atomically (write a temporary file, fsync, rename), so a crash leaves the old or the new state.
public struct FileSyncStore: SyncStore {
    public let directory: URL
    private let makeInstallationId: @Sendable () -> String

    var stateURL: URL { directory.appendingPathComponent("signalbox-sync.json") }
    var lockURL: URL { directory.appendingPathComponent("signalbox-sync.lock") }

    /// - Parameter makeInstallationId: the id of a store created now (a new UUID by default).
    public init(directory: URL, makeInstallationId: @escaping @Sendable () -> String = { UUID().uuidString.lowercased() }) {
        self.directory = directory
        self.makeInstallationId = makeInstallationId
    }

    public func update<T: Sendable>(_ body: (inout SyncState) throws -> T) throws -> T {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let descriptor = open(lockURL.path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw SyncStoreError.lock(path: lockURL.path, errno: errno) }
        defer { close(descriptor) }
        while flock(descriptor, LOCK_EX) != 0 {
            guard errno == EINTR else { throw SyncStoreError.lock(path: lockURL.path, errno: errno) }
        }
        defer { flock(descriptor, LOCK_UN) }
        let (stored, created) = try read()
        var state = stored
        let result = try body(&state)
        // A new store is written at once, so its installation id is the one every later reader sees.
        if created || state != stored { try write(state) }
        if created { excludeFromBackup() }
        return result
    }

    /// The store is this device's: restored from a backup onto another phone it would give both phones one
    /// installation id, so the restored phone starts a new installation instead (Apple platforms).
    private func excludeFromBackup() {
        #if canImport(Darwin)
        var values = URLResourceValues()
        values.isExcludedFromBackup = true
        var url = directory
        try? url.setResourceValues(values)
        #endif
    }

    /// The stored state, or a new one (`created`) only when there is no file at all.
    private func read() throws -> (SyncState, created: Bool) {
        // Under the lock, so no other process is between creating and writing the file.
        guard FileManager.default.fileExists(atPath: stateURL.path) else { return (SyncState(installationId: makeInstallationId()), true) }
        let data: Data
        do {
            data = try Data(contentsOf: stateURL)
        } catch {
            throw SyncStoreError.unreadable(path: stateURL.path, reason: "\(error)")
        }
        do {
            return (try Self.decoder.decode(SyncState.self, from: data), false)
        } catch {
            throw SyncStoreError.unreadable(path: stateURL.path, reason: "\(error)")
        }
    }

    private func write(_ state: SyncState) throws {
        let data = try Self.encoder.encode(state)
        let temporary = directory.appendingPathComponent(".signalbox-sync.\(getpid()).tmp")
        let descriptor = open(temporary.path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw SyncStoreError.write(path: temporary.path, errno: errno) }
        let written = data.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let count = posixWrite(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
                if count < 0 { if errno == EINTR { continue } else { return false } }
                offset += count
            }
            return true
        }
        let synced = fsync(descriptor) == 0
        close(descriptor)
        guard written, synced, rename(temporary.path, stateURL.path) == 0 else {
            let failure = errno
            unlink(temporary.path)
            throw SyncStoreError.write(path: stateURL.path, errno: failure)
        }
    }

    private static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        encoder.dateEncodingStrategy = .millisecondsSince1970
        return encoder
    }()

    private static let decoder: JSONDecoder = {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .millisecondsSince1970
        return decoder
    }()
}

/// `write(2)`, named apart from `FileSyncStore.write(_:)`.
private func posixWrite(_ descriptor: Int32, _ buffer: UnsafeRawPointer, _ count: Int) -> Int {
    write(descriptor, buffer, count)
}

/// The store could not be used; the state is never replaced by an empty one because of it.
public enum SyncStoreError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The file exists but cannot be read or decoded.
    case unreadable(path: String, reason: String)
    case lock(path: String, errno: Int32)
    case write(path: String, errno: Int32)

    public var description: String {
        switch self {
        case .unreadable(let path, let reason): "the sync store \(path) exists but cannot be read (\(reason)); it is left as it is"
        case .lock(let path, let code): "cannot lock \(path): \(String(cString: strerror(code)))"
        case .write(let path, let code): "cannot write \(path): \(String(cString: strerror(code)))"
        }
    }
}
