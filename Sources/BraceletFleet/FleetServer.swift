import Foundation

/// Where the fleet database is: a libpq connection URI (`postgresql://user:password@host:port/db?sslmode=...`),
/// kept with the password out of everything it prints.
///
/// Every option of the URI (`sslmode`, `sslrootcert`, `connect_timeout`, `target_session_attrs`,
/// several hosts for failover, ...) is passed to libpq as it is; only the description is redacted.
public struct FleetServer: Sendable, Equatable, CustomStringConvertible {
    /// The URI as given, password included: handed to libpq only.
    let uri: String
    /// The password(s) the URI carries (user info and a `password=` query parameter), percent-decoded.
    let secrets: [String]

    /// Checks that `uri` is a `postgresql://` or `postgres://` URI.
    ///
    /// - Throws: ``FleetError/invalidURL(_:)`` (with the password replaced) otherwise.
    public init(uri: String) throws {
        self.uri = uri
        secrets = FleetServer.passwords(in: uri)
        guard uri.hasPrefix("postgresql://") || uri.hasPrefix("postgres://") else {
            throw FleetError.invalidURL(FleetServer.redact(uri, secrets: secrets))
        }
    }

    /// Whether the URI itself carries a password (rather than libpq's passfile or environment).
    public var hasPassword: Bool { !secrets.isEmpty }

    /// The URI with every password replaced by `***`: what logs, errors and the delivery log show.
    public var description: String { FleetServer.redact(uri, secrets: secrets) }

    /// `text` with every password of this server replaced by `***` (for messages from libpq or the
    /// server, which could quote the connection string).
    public func scrub(_ text: String) -> String {
        secrets.reduce(text) { $1.isEmpty ? $0 : $0.replacingOccurrences(of: $1, with: "***") }
    }

    /// The URI with the user-info password and any `password=` query value replaced by `***`.
    static func redact(_ uri: String, secrets: [String]) -> String {
        var text = uri
        if let scheme = text.range(of: "://") {
            let rest = text[scheme.upperBound...]
            let authorityEnd = rest.firstIndex(where: { $0 == "/" || $0 == "?" }) ?? rest.endIndex
            if let at = rest[..<authorityEnd].lastIndex(of: "@"), let colon = rest[..<at].firstIndex(of: ":") {
                text.replaceSubrange(text.index(after: colon)..<at, with: "***")
            }
        }
        if let query = text.firstIndex(of: "?") {
            let parameters = text[text.index(after: query)...].split(separator: "&", omittingEmptySubsequences: false).map { pair in
                pair.lowercased().hasPrefix("password=") ? "password=***" : String(pair)
            }
            text = String(text[...query]) + parameters.joined(separator: "&")
        }
        // Anything else that holds a password (a malformed URI) is scrubbed by value.
        return secrets.reduce(text) { $1.isEmpty ? $0 : $0.replacingOccurrences(of: $1, with: "***") }
    }

    /// The passwords in `uri`, raw and percent-decoded.
    static func passwords(in uri: String) -> [String] {
        var found: [String] = []
        if let scheme = uri.range(of: "://") {
            let rest = uri[scheme.upperBound...]
            let authorityEnd = rest.firstIndex(where: { $0 == "/" || $0 == "?" }) ?? rest.endIndex
            if let at = rest[..<authorityEnd].lastIndex(of: "@"), let colon = rest[..<at].firstIndex(of: ":") {
                found.append(String(rest[rest.index(after: colon)..<at]))
            }
        }
        if let query = uri.firstIndex(of: "?") {
            for pair in uri[uri.index(after: query)...].split(separator: "&") where pair.lowercased().hasPrefix("password=") {
                found.append(String(pair.dropFirst("password=".count)))
            }
        }
        return found.flatMap { [$0, $0.removingPercentEncoding ?? $0] }.filter { !$0.isEmpty }
    }
}
