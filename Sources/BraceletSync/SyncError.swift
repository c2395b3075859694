/// Configuration errors of the forwarder and its sinks.
public enum SyncError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The retry settings make no sense.
    case invalidRetryPolicy(String)
    /// An option's value is out of range (not finite, too small, too large).
    case invalidOption(name: String, value: String, rule: String)
    /// The webhook URL is not an absolute http or https URL.
    case invalidWebhookURL(String)
    /// OpenSSL on this host could not be set up for an https webhook (`problem` says what failed).
    case tlsSetup(url: String, problem: String)
    /// The webhook secret is empty.
    case emptySecret
    /// The webhook secret cannot be used (the reason says why and what to give instead).
    case invalidSecret(String)
    /// The JSON Lines file could not be opened for appending.
    case cannotOpenJSONLines(path: String, reason: String)
    /// Another `bracelet sync` is already forwarding this database.
    case anotherForwarderRunning(lockPath: String)
    /// The forwarder's lock file could not be created or locked.
    case cannotLock(path: String, reason: String)

    /// What went wrong and what to do.
    public var description: String {
        switch self {
        case let .invalidRetryPolicy(message):
            "invalid retry settings: \(message). Use 0.001 s <= --base-delay <= --max-delay <= 86400 s."
        case let .invalidOption(name, value, rule):
            "\(name) \(value) is out of range: give \(rule)."
        case let .invalidWebhookURL(url):
            "webhook URL \"\(url)\" is not an absolute http:// or https:// URL. Pass e.g. --webhook https://example.org/bracelet."
        case let .tlsSetup(url, problem):
            "cannot deliver to \(url) over https: \(problem). This is this host's OpenSSL setup, not the receiver: install or "
                + "repair the packages libssl3 and ca-certificates (then run update-ca-certificates), or name a file of trusted "
                + "CA certificates in $SSL_CERT_FILE."
        case .emptySecret:
            "the webhook secret is empty. Give the shared secret the receiver verifies the signatures with: --secret-file FILE, "
                + "$BRACELET_WEBHOOK_SECRET or the systemd credential webhook-secret."
        case let .invalidSecret(reason):
            "the webhook secret cannot be used: \(reason)."
        case let .cannotOpenJSONLines(path, reason):
            "cannot open \(path) for appending: \(reason). Check the folder exists and is writable."
        case let .anotherForwarderRunning(lockPath):
            "another bracelet sync is already forwarding this database (it holds \(lockPath)). Let it finish or stop it; running two would send entries twice."
        case let .cannotLock(path, reason):
            "cannot create the lock file \(path): \(reason). The folder of the database must be writable."
        }
    }
}
