import ArgumentParser
import BraceletProtocol
import Foundation

/// `--secret` and `--secret-file`: the webhook secret of `sync` and `gateway run`.
///
/// A secret on a command line is readable by every user of the host (`ps`, `/proc/PID/cmdline`),
/// so it is warned about; the other sources are private: a file only its owner can read, the
/// environment, or a systemd credential (``SinkSecrets``).
struct WebhookSecretOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp(
        "The webhook secret (signatures: Standard Webhooks, HMAC-SHA256; a whsec_ secret is base64). Visible to every user in ps: prefer --secret-file, $BRACELET_WEBHOOK_SECRET or the systemd credential webhook-secret.",
        valueName: "secret"))
    var secret: String?

    @Option(name: .long, help: ArgumentHelp("Read the webhook secret from this file's first line (mode 0600 or stricter).",
                                            valueName: "path"))
    var secretFile: String?

    /// Whether a secret was given on the command line (by either option).
    var given: Bool { secret != nil || secretFile != nil }

    /// The secret from the options, else `$BRACELET_WEBHOOK_SECRET`, else the systemd credential
    /// `webhook-secret`; `nil` when none of them holds one.
    func resolved() throws -> String? {
        if secret != nil && secretFile != nil { throw ValidationError("give --secret or --secret-file, not both") }
        if let secret { return secret }
        if let secretFile { return try SinkSecrets.privateFirstLine(secretFile, option: "--secret-file", what: "a secret") }
        return try SinkSecrets.fromEnvironment(variable: SinkSecrets.webhookSecretVariable, credential: SinkSecrets.webhookSecretCredential)
    }

    /// The warning for a secret on the command line, `nil` when it came from elsewhere.
    var commandLineWarning: String? {
        guard secret != nil else { return nil }
        return "warning: --secret on a command line is readable by every user of this host (ps, /proc/PID/cmdline): "
            + "use --secret-file FILE (mode 0600), $\(SinkSecrets.webhookSecretVariable) or the systemd credential "
            + "\(SinkSecrets.webhookSecretCredential) (LoadCredential=)"
    }
}

/// Where sink secrets come from when no option gives them: the environment, then the systemd
/// credentials of the service (`LoadCredential=` puts each in `$CREDENTIALS_DIRECTORY`, readable by
/// the service alone). An empty value counts as none: the unit's empty `SetCredential=` fallback
/// lets it start without the credential file, for an operator who uses another sink.
enum SinkSecrets {
    /// The environment variable of the webhook secret.
    static let webhookSecretVariable = "BRACELET_WEBHOOK_SECRET"
    /// The systemd credential of the webhook secret.
    static let webhookSecretCredential = "webhook-secret"
    /// The environment variable of the fleet database URL.
    static let postgresURLVariable = "BRACELET_POSTGRES_URL"
    /// The systemd credential of the fleet database URL.
    static let postgresURLCredential = "postgres-url"

    /// Where a value came from, for messages and warnings.
    enum Origin: Equatable {
        case option, file(String), environment(String), credential(String)

        /// How a message names it.
        var description: String {
            switch self {
            case .option: "the command line"
            case let .file(path): path
            case let .environment(variable): "$\(variable)"
            case let .credential(name): "the systemd credential \(name)"
            }
        }
    }

    /// `variable`'s value, else the credential `credential`'s first line; `nil` when both are
    /// absent or empty.
    static func fromEnvironment(variable: String, credential: String) throws -> String? {
        try fromEnvironmentWithOrigin(variable: variable, credential: credential)?.value
    }

    /// ``fromEnvironment(variable:credential:)`` with where the value came from.
    static func fromEnvironmentWithOrigin(variable: String, credential: String) throws -> (value: String, origin: Origin)? {
        let environment = ProcessInfo.processInfo.environment
        if let value = environment[variable], !value.isEmpty { return (value, .environment(variable)) }
        guard let folder = environment["CREDENTIALS_DIRECTORY"], !folder.isEmpty else { return nil }
        let path = folder + "/" + credential
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        // systemd made the copy private to the service; its mode is systemd's, not the operator's.
        guard let line = firstLine(try read(path, what: "systemd credential \(credential)")) else { return nil }
        return (line, .credential(credential))
    }

    /// The longest secret file read: a secret or a URL is a line, far below this.
    static let fileLimit = 64 << 10

    /// The bytes of `path`, or a message that says what was wrong: missing, not a regular file,
    /// too large, permission denied (with the service user's `sudo -u`), or the system's reason.
    private static func read(_ path: String, what: String) throws -> [UInt8] {
        do { return try InputFile.read(path: path, what: what, limit: fileLimit) } catch { throw CLIError(error.description) }
    }

    /// The first line of `path` (without surrounding spaces), which only its owner may read.
    ///
    /// - Throws: ``CLIError`` when the file cannot be read, group or others may read it (it holds
    ///   `what`), or its first line is empty.
    static func privateFirstLine(_ path: String, option: String, what: String) throws -> String {
        var info = stat()
        guard stat(path, &info) == 0 else {
            throw CLIError(InputFile.openError(path: path, what: option, errno: errno).description)
        }
        guard info.st_mode & 0o077 == 0 else {
            throw CLIError("\(option) \(path) has mode " + String(Int(info.st_mode & 0o777), radix: 8)
                           + ": it holds \(what), so make it private (chmod 600 \(path))")
        }
        let bytes = try read(path, what: option)
        guard let line = firstLine(bytes) else {
            throw CLIError("\(option) \(path) " + (bytes.isEmpty ? "is empty" : "holds nothing on its first line")
                           + ": put \(what == "a password" ? "the URL" : "the secret") on its first line")
        }
        return line
    }

    /// The first line of `bytes` without surrounding whitespace, `nil` when empty.
    private static func firstLine(_ bytes: [UInt8]) -> String? {
        let text = String(decoding: bytes, as: UTF8.self)
        let line = text.split(whereSeparator: \.isNewline).first.map { $0.trimmingCharacters(in: .whitespaces) } ?? ""
        return line.isEmpty ? nil : line
    }
}
