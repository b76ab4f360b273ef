/// Per-round bookkeeping: a 401 is retried once with a fresh token; a 404 re-sends the installation once.
struct Round {
    var refreshedCredentials = false
    var reinstalled: Set<String> = []
}
