#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The process's open-file limit (`RLIMIT_NOFILE`).
public enum DescriptorLimit {
    #if canImport(Glibc)
    private static let resource = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
    #else
    private static let resource = RLIMIT_NOFILE
    #endif

    /// The soft limit now.
    public static var current: Int {
        var limit = rlimit()
        guard getrlimit(resource, &limit) == 0 else { return 1024 }
        return Int(clamping: limit.rlim_cur)
    }

    /// Raises the soft limit to the hard one (the default soft limit, often 1,024, is what a connection flood
    /// exhausts first). Returns the soft limit before and after.
    @discardableResult
    public static func raiseToHard() -> (before: Int, after: Int) {
        var limit = rlimit()
        guard getrlimit(resource, &limit) == 0 else { return (current, current) }
        let before = Int(clamping: limit.rlim_cur)
        if limit.rlim_cur < limit.rlim_max {
            var raised = limit
            raised.rlim_cur = limit.rlim_max
            #if canImport(Darwin)
            raised.rlim_cur = min(limit.rlim_max, rlim_t(OPEN_MAX))
            #endif
            _ = setrlimit(resource, &raised)
        }
        return (before, current)
    }
}
