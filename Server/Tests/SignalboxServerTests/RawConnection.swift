import Foundation
import SignalboxTestSupport
#if canImport(Glibc)
import Glibc
#endif

/// A plain TCP connection to 127.0.0.1, for sending half requests and watching when the server closes.
/// `@unchecked Sendable`: one test uses it at a time; `read` hands it to a thread of its own while it waits.
final class RawConnection: @unchecked Sendable {
    private let socketDescriptor: Int32
    private var isOpen = true

    init(port: Int) throws {
        socketDescriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socketDescriptor >= 0 else { throw ChildProcessError(message: "socket: \(errno)") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(socketDescriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            close()  // once: deinit runs for this fully initialised object and must not close the number again
            throw ChildProcessError(message: "connect to 127.0.0.1:\(port): \(String(cString: strerror(errno)))")
        }
    }

    deinit { close() }

    func send(_ text: String) {
        let bytes = Array(text.utf8)
        _ = bytes.withUnsafeBytes { Glibc.send(socketDescriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    }

    /// Half-closes: the server sees the end of the request stream but can still answer.
    func shutdownWrite() { shutdown(socketDescriptor, Int32(SHUT_WR)) }

    /// Reads until the server closes or `timeout` passes: what arrived, and whether the connection was closed.
    /// The wait blocks a thread of its own, never one of the cooperative threads the servers under test need.
    func read(timeout: Duration) async -> (text: String, closed: Bool) {
        await offCooperativePool { self.readBlocking(timeout: timeout) }
    }

    private func readBlocking(timeout: Duration) -> (text: String, closed: Bool) {
        var received = [UInt8]()
        let deadline = ContinuousClock.now + timeout
        var buffer = [UInt8](repeating: 0, count: 4096)
        while ContinuousClock.now < deadline {
            let left = deadline - ContinuousClock.now
            var poller = pollfd(fd: socketDescriptor, events: Int16(POLLIN), revents: 0)
            let milliseconds = Int32(max(1, left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000))
            guard poll(&poller, 1, milliseconds) > 0 else { continue }
            let count = buffer.withUnsafeMutableBytes { recv(socketDescriptor, $0.baseAddress, $0.count, 0) }
            if count <= 0 { return (String(decoding: received, as: UTF8.self), true) }
            received += buffer[0..<count]
        }
        return (String(decoding: received, as: UTF8.self), false)
    }

    func close() {
        guard isOpen else { return }
        isOpen = false
        Glibc.close(socketDescriptor)
    }
}
