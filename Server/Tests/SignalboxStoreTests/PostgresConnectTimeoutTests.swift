import Foundation
import Logging
import NIOCore
import NIOPosix
@testable import SignalboxStore
import SignalboxModel
import Synchronization
import Testing

/// The database URL's `connect_timeout` (libpq's name, whole seconds) bounds how long one connection may take to open.
@Suite struct PostgresConnectTimeoutTests {
    @Test func theURLsConnectTimeoutIsReadAsLibpqDoes() throws {
        let base = "postgres://signalbox:secret-password@127.0.0.1:5432/db?sslmode=disable"
        #expect(try PostgresConnector.connectTimeout(url: base) == .seconds(10))
        #expect(try PostgresConnector.configuration(url: base + "&connect_timeout=45").options.connectTimeout == .seconds(45))
        for bad in ["0", "-1", "1.5", "abc", "3601", ""] {
            let error = #expect(throws: StoreError.self) { try PostgresConnector.configuration(url: base + "&connect_timeout=" + bad) }
            let message = try #require(error).description
            #expect(message.contains("connect_timeout") && !message.contains("secret-password"))
        }
    }

    /// A server that accepts the connection and never answers the login: the attempt is dropped at the timeout and
    /// another is opened (without a timeout the start would wait on the first until its deadline).
    @Test func aLoginThatNeverAnswersIsAbandonedAndTriedAgain() async throws {
        let accepted = Atomic<Int>(0)
        let silent = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .childChannelInitializer { channel in
                accepted.add(1, ordering: .relaxed)
                return channel.eventLoop.makeSucceededVoidFuture()
            }
            .bind(host: "127.0.0.1", port: 0).get()
        let port = try #require(silent.localAddress?.port)
        let ended = Atomic<Bool>(false)
        let starting = Task {
            defer { ended.store(true, ordering: .relaxed) }
            try await SQLStores.postgres(
                url: "postgres://signalbox@127.0.0.1:\(port)/db?sslmode=disable&connect_timeout=1", logger: Logger(label: "test"),
                claimLease: .seconds(60), connectDeadline: .seconds(120)
            ).close()
        }
        while accepted.load(ordering: .relaxed) < 2 && !ended.load(ordering: .relaxed) { try await Task.sleep(for: .milliseconds(50)) }
        #expect(accepted.load(ordering: .relaxed) >= 2, "a second connection before the start's deadline")
        starting.cancel()
        await #expect(throws: (any Error).self) { try await starting.value }
        try await silent.close()
    }
}
