#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import NIOPosix

/// A host's addresses from the system resolver (`getaddrinfo`, as the HTTP client resolves them), run on NIO's
/// blocking-I/O thread pool so no cooperative thread waits on DNS.
public enum SystemResolver {
    struct Failure: Error, CustomStringConvertible {
        let code: Int32
        var description: String { "getaddrinfo failed (\(code))" }
    }

    public static func addresses(of host: String) async throws -> [NetworkAddress] {
        try await NIOThreadPool.singleton.runIfActive { try lookUp(host) }
    }

    static func lookUp(_ host: String) throws -> [NetworkAddress] {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        #if canImport(Glibc)
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        #else
        hints.ai_socktype = SOCK_STREAM
        #endif
        var list: UnsafeMutablePointer<addrinfo>?
        let code = getaddrinfo(host, nil, &hints, &list)
        guard code == 0 else { throw Failure(code: code) }
        defer { freeaddrinfo(list) }
        var addresses: [NetworkAddress] = []
        var next = list
        while let info = next {
            if let sockaddr = info.pointee.ai_addr {
                switch info.pointee.ai_family {
                case AF_INET:
                    var address = sockaddr.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { $0.pointee.sin_addr }
                    addresses += NetworkAddress(bytes: withUnsafeBytes(of: &address) { Array($0) }).map { [$0] } ?? []
                case AF_INET6:
                    var address = sockaddr.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { $0.pointee.sin6_addr }
                    addresses += NetworkAddress(bytes: withUnsafeBytes(of: &address) { Array($0) }).map { [$0] } ?? []
                default:
                    break
                }
            }
            next = info.pointee.ai_next
        }
        return addresses
    }
}
