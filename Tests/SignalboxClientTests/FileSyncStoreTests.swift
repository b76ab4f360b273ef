import Foundation
import SignalboxClientTesting
import Testing
@testable import SignalboxClient

/// The store in the app group: created once, shared, never silently replaced.
struct FileSyncStoreTests {
    static func directory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("signalbox-client-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    @Test func theInstallationIdIsCreatedOnceAndSeenByEveryStoreOnTheDirectory() throws {
        let directory = try Self.directory()
        let first = FileSyncStore(directory: directory, makeInstallationId: { "first" })
        #expect(try first.update { $0.installationId } == "first")
        let second = FileSyncStore(directory: directory, makeInstallationId: { "second" })
        #expect(try second.update { $0.installationId } == "first")
        try first.update { $0.nextRevision = 5 }
        #expect(try second.update { $0.installationId } == "first")
        #expect(try second.update { $0.nextRevision } == 5)
        let mode = try FileManager.default.attributesOfItem(atPath: first.stateURL.path)[.posixPermissions] as? Int
        #expect(mode == 0o600)
    }

    @Test func anUnreadableStoreIsAnErrorAndIsLeftAsItIs() throws {
        let directory = try Self.directory()
        let store = FileSyncStore(directory: directory)
        try Data("{\"installationId\": tru".utf8).write(to: store.stateURL)
        #expect(throws: SyncStoreError.self) { try store.update { $0.installationId } }
        #expect(throws: SyncStoreError.self) { try store.update { $0.nextRevision = 9 } }
        #expect(try String(contentsOf: store.stateURL, encoding: .utf8) == "{\"installationId\": tru")
    }

    @Test func concurrentUpdatesFromManyThreadsLoseNothing() async throws {
        let directory = try Self.directory()
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    // A store value per task, as separate processes would have: each takes the file lock.
                    let store = FileSyncStore(directory: directory)
                    for _ in 0..<25 { _ = try? store.update { $0.nextRevision += 1 } }
                }
            }
        }
        #expect(try FileSyncStore(directory: directory).update { $0.nextRevision } == 1 + 200)
    }

    @Test func aQueueOnAFileStoreKeepsItsStateAcrossRestarts() async throws {
        let directory = try Self.directory()
        let transport = MemoryTransport()
        let fixture = QueueFixture(transport: transport, store: FileSyncStore(directory: directory))
        try fixture.queue.set(QueueFixture.installation)
        try await fixture.queue.sync()
        let restarted = QueueFixture(transport: transport, store: FileSyncStore(directory: directory))
        try restarted.queue.set(QueueFixture.installation)
        try await restarted.queue.sync()
        #expect(transport.sent == ["PUT installation"], "acknowledged before the restart: not sent again")
        #expect(try restarted.queue.installationId() == fixture.queue.installationId())
    }
}
