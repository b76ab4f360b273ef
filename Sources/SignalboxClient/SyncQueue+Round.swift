/// Per-round bookkeeping: a 401 is retried once with a fresh token; a 404 re-sends the installation once; an
/// installation of another user is left for a new id once.
struct Round {
    var refreshedCredentials = false
    var reinstalled: Set<String> = []
    /// The installation moved to a new id after a 403 for another user's installation.
    var movedInstallation = false
}
