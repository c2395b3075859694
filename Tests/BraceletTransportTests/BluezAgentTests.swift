import BraceletProtocol
@testable import BraceletTransport
import Foundation
import Testing

/// libdbus-1 as the agent loads it; `nil` (and a printed reason) where it cannot be loaded.
private let library: LibDBus? = {
    switch LibDBus.shared {
    case .success(let library): return library
    case .failure(let error):
        print("BluezAgentTests: skipping the libdbus tests: \(error)")
        return nil
    }
}()

@Suite("BlueZ agent: Agent1 answers built and read with libdbus", .enabled(if: library != nil, "libdbus-1.so.3 cannot be loaded here"))
struct BluezAgentTests {
    let bracelet = BluetoothAddress("00:AA:01:01:00:01")!
    let bluetoothd = ":1.7"
    var policy: AgentPolicy {
        AgentPolicy(settings: BluezAgent.Settings(adapter: "hci0", device: bracelet, passkey: 999_999, capability: .keyboardOnly),
                    objectPath: "/org/bracelet/agent42", bluetoothd: bluetoothd)
    }

    /// A call of Agent1.`member` as bluetoothd sends it.
    func call(_ member: String, _ arguments: [DBusArgument], from sender: String? = nil, interface: String = "org.bluez.Agent1",
              path: String = "/org/bracelet/agent42") throws -> DBusMessage {
        let library = try #require(library)
        let message = try #require(DBusMessage.methodCall(library, destination: ":1.9", path: path, interface: interface,
                                                          member: member, arguments: arguments))
        message.setArrived(sender: sender ?? bluetoothd, serial: 41)
        return message
    }

    @Test func requestPasskeyForTheBraceletIsAnsweredWithThePasskey() throws {
        let (reply, event) = policy.answer(try call("RequestPasskey", [.objectPath("/org/bluez/hci0/dev_00_AA_01_01_00_01")]))
        let answer = try #require(reply)
        #expect(answer.kind == .methodReturn)
        #expect(answer.arguments == [.uint32(999_999)])
        #expect(event == .passkeyEntered(device: bracelet, passkey: 999_999))

        var other = policy
        other.settings.passkey = 123
        let (reply123, _) = other.answer(try call("RequestPasskey", [.objectPath("/org/bluez/hci0/dev_00_AA_01_01_00_01")]))
        #expect(reply123?.arguments == [.uint32(123)])
    }

    @Test func requestPasskeyForAnotherDeviceOrAdapterOrFromAnotherSenderIsRejected() throws {
        for (path, sender) in [("/org/bluez/hci0/dev_00_AA_01_01_00_02", bluetoothd), ("/org/bluez/hci1/dev_00_AA_01_01_00_01", bluetoothd),
                               ("/org/bluez/hci0/dev_00_AA_01_01_00_01", ":1.99"), ("/org/bluez/hci0", bluetoothd)] {
            let (reply, event) = policy.answer(try call("RequestPasskey", [.objectPath(path)], from: sender))
            #expect(reply?.kind == .error, "\(path) from \(sender)")
            #expect(reply?.errorName == "org.bluez.Error.Rejected")
            #expect(reply?.arguments.isEmpty == false)  // the reason travels as the error's message
            if case .refused(let method, let device, _)? = event {
                #expect(method == "RequestPasskey" && device == path)
            } else {
                Issue.record("\(path) from \(sender): \(String(describing: event))")
            }
        }
    }

    @Test func releaseAndCancelGetAnEmptyReply() throws {
        for (member, expected) in [("Release", BluezAgentEvent.released), ("Cancel", .cancelled)] {
            let (reply, event) = policy.answer(try call(member, []))
            #expect(reply?.kind == .methodReturn)
            #expect(reply?.arguments == [])
            #expect(event == expected)
        }
    }

    @Test func everyOtherAgentRequestIsRejected() throws {
        let device = DBusArgument.objectPath("/org/bluez/hci0/dev_00_AA_01_01_00_01")
        let requests: [(String, [DBusArgument])] = [
            ("RequestPinCode", [device]), ("DisplayPinCode", [device, .string("0000")]), ("DisplayPasskey", [device, .uint32(999_999)]),
            ("RequestConfirmation", [device, .uint32(999_999)]), ("RequestAuthorization", [device]),
            ("AuthorizeService", [device, .string("0000180d-0000-1000-8000-00805f9b34fb")]),
        ]
        for (member, arguments) in requests {
            let (reply, event) = policy.answer(try call(member, arguments))
            #expect(reply?.kind == .error, "\(member)")
            #expect(reply?.errorName == "org.bluez.Error.Rejected", "\(member)")
            #expect(event == .refused(method: member, device: "/org/bluez/hci0/dev_00_AA_01_01_00_01",
                                      reason: "listen pairs its bracelet by passkey entry only"))
        }
    }

    @Test func unknownMethodsInterfacesAndPathsGetUnknownMethodAndSignalsNoReply() throws {
        let unknown = policy.answer(try call("RequestSomethingNew", []))
        #expect(unknown.reply?.errorName == "org.freedesktop.DBus.Error.UnknownMethod")
        #expect(unknown.event == nil)
        let introspect = policy.answer(try call("Introspect", [], interface: "org.freedesktop.DBus.Introspectable"))
        #expect(introspect.reply?.errorName == "org.freedesktop.DBus.Error.UnknownMethod")
        let elsewhere = policy.answer(try call("RequestPasskey", [.objectPath("/org/bluez/hci0/dev_00_AA_01_01_00_01")], path: "/org/other"))
        #expect(elsewhere.reply?.errorName == "org.freedesktop.DBus.Error.UnknownMethod")
        #expect(elsewhere.event == nil)
        // A reply arriving on the agent's connection is not a call: nothing to answer.
        let returned = try #require(try call("Release", []).methodReturn([.uint32(1)]))
        #expect(policy.answer(returned).reply == nil)
    }

    /// The whole path to the bus and back: connect to a private bus (given as the system bus), call
    /// RegisterAgent, and turn the bus's answer (no bluetoothd there) into what to do.
    @Test func registeringWithoutBluetoothdOnTheBusSaysSo() throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/dbus-daemon") else {
            print("BluezAgentTests: no /usr/bin/dbus-daemon; the registration test did not run")
            return
        }
        let daemon = Process()
        daemon.executableURL = URL(fileURLWithPath: "/usr/bin/dbus-daemon")
        daemon.arguments = ["--session", "--nofork", "--print-address=1"]
        let output = Pipe()
        daemon.standardOutput = output
        try daemon.run()
        defer {
            // dbus-daemon outlives SIGTERM here; SIGKILL leaves no daemon behind.
            kill(daemon.processIdentifier, SIGKILL)
            daemon.waitUntilExit()
        }
        let line = String(decoding: output.fileHandleForReading.availableData, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        try #require(line.hasPrefix("unix:"), "dbus-daemon printed \(line)")
        setenv("DBUS_SYSTEM_BUS_ADDRESS", line, 1)
        let settings = BluezAgent.Settings(adapter: "hci0", device: bracelet, passkey: 999_999, capability: .keyboardOnly)
        let error = #expect(throws: BluezAgentError.self) { _ = try BluezAgent(settings: settings) }
        guard case .refused("RegisterAgent", let name, _)? = error else {
            Issue.record("registration failed otherwise: \(String(describing: error))")
            return
        }
        #expect(name == "org.freedesktop.DBus.Error.ServiceUnknown")
        #expect(error?.description.contains("bluetoothd is not on the system bus") == true)
    }
}

@Suite("BlueZ agent: device paths and error advice")
struct BluezAgentPathTests {
    @Test func devicePathsNameAdapterAndAddress() {
        let parsed = AgentPolicy.device("/org/bluez/hci0/dev_00_AA_01_01_00_01")
        #expect(parsed?.adapter == "hci0")
        #expect(parsed?.address == BluetoothAddress("00:AA:01:01:00:01"))
        #expect(AgentPolicy.device("/org/bluez/hci0") == nil)
        #expect(AgentPolicy.device("/org/bluez/hci0/dev_00_AA_01") == nil)
        #expect(AgentPolicy.device("/org/other/hci0/dev_00_AA_01_01_00_01") == nil)
    }

    @Test func errorsSayWhatToDo() {
        #expect(BluezAgentError.systemBus(name: "org.freedesktop.DBus.Error.AccessDenied", message: "x").description.contains("run as root"))
        #expect(BluezAgentError.refused(method: "RegisterAgent", name: "org.freedesktop.DBus.Error.AccessDenied", message: "x")
            .description.contains("/etc/dbus-1/system.d/bluetooth.conf"))
        #expect(BluezAgentError.refused(method: "RegisterAgent", name: "org.freedesktop.DBus.Error.NoReply", message: "x")
            .description.contains("restart it"))
        #expect(BluezAgentError.libraryMissing(reason: "x").description.contains("libdbus-1-3"))
    }
}
