#if os(Linux)
import Foundation
import SignalboxClientApple

// snippet: app
/// At launch and on every foreground (`.onChange(of: scenePhase)` to `.active`): who the user is, and a
/// reconcile with the widgets and controls the system has now.
func appBecameActive(session: Session) async {
    guard let signalbox = SignalboxApple.current else { return }
    do {
        try signalbox.setInstallation(userId: session.userId, channels: session.channels)
        try await signalbox.reconcile()   // WidgetCenter push info + configurations, ControlCenter.currentControls()
    } catch {
        print("Signalbox: \(error)")      // the queue keeps what it could not send and retries
    }
}

/// Sign-out, before the app forgets the session: the backend must still mint this user's device JWT.
func userSignsOut() async {
    do {
        try await SignalboxApple.current?.signOut()
    } catch {
        // Offline: nothing changed. Try again, or delete the installation from the backend with the server key
        // and call `SignalboxApple.current?.queue.startNewInstallation()`.
    }
}
// end snippet
#endif
