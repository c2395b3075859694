import ArgumentParser
import BraceletStore

/// `--allow-personal-user-id`, beside every option that takes a user id, and the one check of such
/// an id (``UserID/check(_:allowingPersonalData:)``): one that looks like an e-mail address, a
/// phone number or another personal identifier is refused with the reason, unless this flag says
/// the team must use such ids.
struct UserIDPolicyOptions: ParsableArguments {
    @Flag(name: .customLong("allow-personal-user-id"),
          help: "Take a user id that looks like personal data (an e-mail address, a phone number); it is sent with every delivery.")
    var allowPersonalUserID = false

    /// Refuses `id`, given with `option` (`--user`), when it is not a user id or carries personal
    /// data without ``allowPersonalUserID``; with it, a warning says where such an id goes.
    func check(_ id: String?, option: String) throws {
        guard let id else { return }
        let kind: String?
        do throws(UserIDError) {
            kind = try UserID.check(id, allowingPersonalData: allowPersonalUserID)
        } catch {
            throw ValidationError("\(option): \(error)")
        }
        if let kind {
            Log.warning("warning: \(option) \(id) looks like \(kind) and is sent with every delivery (--allow-personal-user-id)")
        }
    }
}
