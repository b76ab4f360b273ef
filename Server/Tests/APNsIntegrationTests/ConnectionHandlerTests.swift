import NIOCore
import NIOEmbedded
import NIOHPACK
import NIOHTTP2
import SignalboxAPNs
import Testing

@testable import SignalboxAPNsHTTP2

/// The frame handler alone, on an embedded channel: what happens to each push when GOAWAY, errors and closes come.
@Suite struct ConnectionHandlerTests {
    final class Recorder: ConnectionEvents {
        var errors: [String] = []
        var goAways: [String] = []
        var streamsClosed = 0
        func tlsEstablished(negotiatedProtocol: String?) {}
        func settingsReceived(maxConcurrentStreams: Int?) {}
        func goAwayReceived(cause: String) { goAways.append(cause) }
        func connectionError(_ error: any Error) { errors.append("\(error)") }
        func answeredGoingAway(_ reason: String) {}
        func pingAcknowledged() {}
        func streamClosed(answered: Bool) { streamsClosed += 1 }
        func channelClosed(unanswered: Int, unknown: Int) {}
    }

    let channel = EmbeddedChannel()
    let recorder = Recorder()
    let handler: ConnectionHandler

    init() throws {
        handler = ConnectionHandler(connection: recorder, authority: "apns.test")
        try channel.pipeline.syncOperations.addHandler(handler)
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 443)).wait()
    }

    /// Starts `count` pushes on streams 1, 3, 5… and returns their futures.
    func start(_ count: Int) throws -> [EventLoopFuture<APNsResponse>] {
        let key = SigningKey(privateKey: .init(), keyId: "KEY1234567", teamId: "TEAM123456")
        return try (0..<count).map { index in
            let push = try Push(deviceToken: DeviceToken(hex: String(format: "%04x", index)), pushType: .controls, bundleId: "com.example")
            let request = APNsRequest(push: push, environment: .sandbox, token: key.providerToken(issuedAt: .now), teamId: key.teamId, keyId: key.keyId)
            let promise = channel.eventLoop.makePromise(of: APNsResponse.self)
            handler.start(PendingPush(request: request, deadline: .distantFuture) { promise.completeWith($0) })
            return promise.futureResult
        }
    }

    func answer(_ stream: Int) throws {
        let headers = HPACKHeaders([(":status", "200")])
        try channel.writeInbound(HTTP2Frame(streamID: HTTP2StreamID(stream), payload: .headers(.init(headers: headers, endStream: true))))
    }

    /// Written and read on the embedded loop's one thread only.
    final class Outcome: @unchecked Sendable { var result: Result<APNsResponse, any Error>? }

    /// How `future` ended, or `nil` while it has not (never waits: a push left hanging is a failure to see).
    func outcome(_ future: EventLoopFuture<APNsResponse>) -> Result<APNsResponse, any Error>? {
        let outcome = Outcome()
        future.whenComplete { outcome.result = $0 }
        channel.embeddedEventLoop.run()
        return outcome.result
    }

    func failure(_ future: EventLoopFuture<APNsResponse>) -> ConnectionFailure? {
        guard case .failure(let error) = outcome(future) else { return nil }
        return error as? ConnectionFailure
    }

    func status(_ future: EventLoopFuture<APNsResponse>) -> Int? {
        guard case .success(let response) = outcome(future) else { return nil }
        return response.status
    }

    @Test func goAwayRefusesStreamsAboveItsLastStreamAtOnceAndKeepsTheOthers() throws {
        let futures = try start(6)  // streams 1, 3, 5, 7, 9, 11
        try answer(1)
        try channel.writeInbound(HTTP2Frame(streamID: .rootStream, payload: .goAway(lastStreamID: 5, errorCode: .noError, opaqueData: nil)))
        // 7, 9 and 11 were not processed: refused now, though NIOHTTP2 may never have opened them.
        #expect(futures[3...].map(failure) == [.refused, .refused, .refused])
        #expect(recorder.goAways.count == 1 && recorder.streamsClosed == 3)
        // 3 and 5 were processed: their answers are still read.
        try answer(3)
        try answer(5)
        #expect(futures[...2].map(status) == [200, 200, 200])
        #expect(channel.isActive)
    }

    @Test func aConnectionErrorDrainsInsteadOfDroppingAnswersOnTheirWay() throws {
        let futures = try start(2)
        // What NIOHTTP2 raises when it opens a stream it buffered after a GOAWAY came: not worth the answers in flight.
        channel.pipeline.fireErrorCaught(NIOHTTP2Errors.createdStreamAfterGoaway())
        #expect(recorder.errors.count == 1)
        #expect(channel.isActive, "the handler must not close the channel")
        try answer(1)
        try answer(3)
        #expect(futures.map(status) == [200, 200])
    }

    @Test func answeredPushesAreNeverFailedByALaterCloseAndTheRestAreUnknown() throws {
        let futures = try start(2)
        try answer(1)
        try channel.close().wait()
        #expect(status(futures[0]) == 200)
        guard case .unknown = failure(futures[1]) else {
            Issue.record("an unanswered stream at close is unknown (may have been processed)")
            return
        }
    }

    @Test func anAnswersHeadersAndBodyInSeveralFramesMakeOneResponse() throws {
        let futures = try start(2)
        let headers = HPACKHeaders([(":status", "400"), ("apns-id", "0a1b2c3d-0000-0000-0000-000000000001")])
        try channel.writeInbound(HTTP2Frame(streamID: 1, payload: .headers(.init(headers: headers))))
        for (part, last) in [("{\"reason\":\"BadDev", false), ("iceToken\"}", true)] {
            let chunk = ByteBuffer(string: part)
            try channel.writeInbound(HTTP2Frame(streamID: 1, payload: .data(.init(data: .byteBuffer(chunk), endStream: last))))
        }
        // An answer whose HEADERS lack `:status` is no answer: its push fails, as unknown.
        try channel.writeInbound(HTTP2Frame(streamID: 3, payload: .headers(.init(headers: HPACKHeaders([("apns-id", "x")]), endStream: true))))
        guard case .success(let response) = outcome(futures[0]) else {
            Issue.record("the first push was not answered")
            return
        }
        #expect(response.status == 400)
        #expect(response.reason == .badDeviceToken)
        #expect(response.apnsIdText == "0a1b2c3d-0000-0000-0000-000000000001")
        guard case .unknown = failure(futures[1]) else {
            Issue.record("an answer without :status must fail its push as unknown")
            return
        }
    }

    @Test func aHeaderHTTP2ForbidsFailsThatPushWithoutAStream() throws {
        let key = SigningKey(privateKey: .init(), keyId: "KEY1234567", teamId: "TEAM123456")
        var push = try Push(deviceToken: DeviceToken(hex: "aa"), pushType: .controls, bundleId: "com.example")
        push.collapseId = "a\r\nb"
        let request = APNsRequest(push: push, environment: .sandbox, token: key.providerToken(issuedAt: .now), teamId: key.teamId, keyId: key.keyId)
        let promise = channel.eventLoop.makePromise(of: APNsResponse.self)
        handler.start(PendingPush(request: request, deadline: .distantFuture) { promise.completeWith($0) })
        guard case .malformed = failure(promise.futureResult) else {
            Issue.record("expected a malformed failure")
            return
        }
        #expect(try channel.readOutbound(as: HTTP2Frame.self) == nil, "nothing written")
        #expect(channel.isActive)
    }
}
