import Logging
import SignalboxAPNsHTTP2
import SignalboxServer

/// Everything `signalbox serve` reads from flags, environment and file: the server's configuration plus the
/// command's own settings (where pushes go, how logs look).
struct ServeSettings: Sendable {
    /// Where pushes go when not to Apple.
    struct APNs: Sendable {
        /// Local mode: a built-in simulator on `simulatorPort` (admin endpoint on the next port).
        var simulator = false
        var simulatorPort = 2197
        /// Any other APNs double.
        var host: String?
        var port = 443
        /// PEM certificate to trust for `host`.
        var ca: String?
        /// HTTP proxy every APNs connection goes through (`CONNECT`); not used with the built-in simulator.
        var proxy: HTTP2Transport.Proxy?
    }

    /// How log lines are written.
    enum LogFormat: String, Sendable, CaseIterable {
        /// swift-log's default text lines.
        case text
        /// One JSON object per line, for log collectors.
        case json
    }

    var server = ServerConfiguration()
    var apns = APNs()
    var logLevel = Logger.Level.info
    var logFormat = LogFormat.text
}
