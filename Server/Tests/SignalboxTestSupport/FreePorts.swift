import Foundation

/// Loopback ports for a child process that takes a port and the next one (the built-in APNs simulator and its admin
/// endpoint, chromedriver's pair).
public enum FreePorts {
    /// A free port whose next port is free too.
    public static func pair() throws -> Int {
        for _ in 0..<50 {
            let port = Int.random(in: 20_000...59_000)
            if isFree(port), isFree(port + 1) { return port }
        }
        throw FreePortsError()
    }

    private static func isFree(_ port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
    }
}

public struct FreePortsError: Error, CustomStringConvertible {
    public var description: String { "no free port pair found on 127.0.0.1" }
}
