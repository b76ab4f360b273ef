import Testing

@testable import SignalboxAPNsHTTP2

@Suite struct ConnectionStateMachineTests {
    typealias Machine = ConnectionStateMachine<Int>

    func opened(_ action: Machine.Action) -> [Int] {
        if case .openStreams(let requests) = action { return requests }
        return []
    }

    @Test func requestsWaitUntilEstablished() {
        var machine = Machine(localMaxConcurrentStreams: 100)
        #expect(opened(machine.enqueue(1)).isEmpty)
        #expect(opened(machine.established()) == [1])
    }

    @Test func firstRequestGoesAloneUntilAnswered() {
        var machine = Machine(localMaxConcurrentStreams: 100)
        _ = machine.established()
        _ = machine.settingsReceived(maxConcurrentStreams: 1000)
        #expect(opened(machine.enqueue(1)) == [1])
        #expect(opened(machine.enqueue(2)).isEmpty)
        #expect(opened(machine.enqueue(3)).isEmpty)
        #expect(machine.streamLimit == 1)
        // A stream that ended without an answer does not lift the limit.
        #expect(opened(machine.streamClosed(answered: false)) == [2])
        #expect(machine.streamLimit == 1)
        #expect(opened(machine.streamClosed(answered: true)) == [3])
        #expect(machine.streamLimit == 100)
    }

    @Test func serverSettingsBoundConcurrency() {
        var machine = Machine(localMaxConcurrentStreams: 1000)
        _ = machine.established()
        _ = machine.enqueue(0)
        _ = machine.streamClosed(answered: true)
        _ = machine.settingsReceived(maxConcurrentStreams: 2)
        #expect(opened(machine.enqueue(1)) == [1])
        #expect(opened(machine.enqueue(2)) == [2])
        #expect(opened(machine.enqueue(3)).isEmpty)
        #expect(opened(machine.settingsReceived(maxConcurrentStreams: 3)) == [3])
        _ = machine.settingsReceived(maxConcurrentStreams: 1)
        _ = machine.enqueue(4)
        #expect(opened(machine.streamClosed(answered: true)).isEmpty)
        #expect(opened(machine.streamClosed(answered: true)).isEmpty)
        #expect(opened(machine.streamClosed(answered: true)) == [4])
    }

    @Test func goAwayRequeuesWaitingAndClosesWhenDrained() {
        var machine = Machine(localMaxConcurrentStreams: 10)
        _ = machine.established()
        _ = machine.enqueue(1)
        _ = machine.enqueue(2)
        guard case .requeue(let waiting) = machine.goAway() else {
            Issue.record("expected the waiting request back")
            return
        }
        #expect(waiting == [2])
        #expect(!machine.acceptsRequests)
        if case .requeue(let refused) = machine.enqueue(3) { #expect(refused == [3]) } else { Issue.record("accepted after GOAWAY") }
        guard case .close = machine.streamClosed(answered: true) else {
            Issue.record("expected close once drained")
            return
        }
    }

    @Test func goAwayWithNothingInFlightClosesAfterGivingTheWaitingBack() {
        var machine = Machine(localMaxConcurrentStreams: 10)
        _ = machine.enqueue(1)
        guard case .requeueAndClose(let waiting) = machine.goAway() else {
            Issue.record("expected the waiting request back and a close")
            return
        }
        #expect(waiting == [1])
    }

    @Test func closeRequeuesWaitingRequests() {
        var machine = Machine(localMaxConcurrentStreams: 10)
        _ = machine.enqueue(1)
        _ = machine.enqueue(2)
        guard case .requeue(let waiting) = machine.closed() else {
            Issue.record("expected requeue")
            return
        }
        #expect(waiting == [1, 2])
    }

    @Test func cancelledRequestLeavesTheQueue() {
        var machine = Machine(localMaxConcurrentStreams: 10)
        _ = machine.enqueue(1)
        _ = machine.enqueue(2)
        #expect(machine.cancel { $0 == 1 })
        #expect(!machine.cancel { $0 == 1 })
        #expect(opened(machine.established()) == [2])
    }
}
