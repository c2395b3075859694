import ArgumentParser
import BraceletTransport

/// `bracelet unpair`: forget a bracelet's bond on this gateway.
struct UnpairCommand: ParsableCommand, LoggingCommand {
    static let configuration = CommandConfiguration(
        commandName: "unpair",
        abstract: "Remove this gateway's bond with a bracelet (its keys), so the next sync pairs anew.",
        discussion: """
            Removes the keys the kernel holds for ADDR on the adapter and ends a connection to it, through \
            the management interface (needs root or CAP_NET_ADMIN). Use it when listen says the bracelet \
            lost the bond, then put the bracelet in pairing mode and sync again. Removing a bond that does \
            not exist is not an error. Exit status: 0 done; 2 Bluetooth unusable (the message says what to do).
            """
    )

    @Argument(help: "The bracelet's address (AA:BB:CC:DD:EE:FF).")
    var address: String

    @Option(help: "The adapter holding the bond (default: the first one).")
    var adapter: String?

    @Option(help: "Address type of ADDR (default: both).")
    var addressType: AddressTypeArgument?

    @OptionGroup var log: LogOptions

    func run() throws {
        guard let device = BluetoothAddress(address) else { throw ValidationError(BluetoothError.invalidAddress(address).description) }
        let types = addressType.map { [$0.addressType] } ?? [.public, .random]
        var removed: [LEAddressType] = []
        var adapterName = adapter ?? "the first adapter"
        do {
            for type in types {
                let result = try BondRemoval.unpair(ManagementAddress(device, type), adapter: adapter)
                adapterName = result.adapter
                if result.removed { removed.append(type) }
            }
        } catch {
            Log.error("bracelet unpair: \(error)")
            throw ExitCode(2)
        }
        if removed.isEmpty {
            print("\(adapterName) held no bond with \(device); nothing to remove")
        } else {
            print("removed the bond with \(device) (\(removed.map(\.description).joined(separator: ", "))) on \(adapterName)")
        }
    }
}
