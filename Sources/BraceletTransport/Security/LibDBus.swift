import Glibc

/// The part of libdbus-1 that the BlueZ agent uses, loaded at run time with `dlopen`: the package
/// then builds without libdbus-1-dev and runs where libdbus is absent (a machine without
/// bluetoothd never needs it; one with bluetoothd has it, since bluetoothd links it). libdbus has
/// kept the soname `libdbus-1.so.3` and these signatures since 1.0.
///
/// Only fixed-argument functions are used: Swift cannot call a variadic C function through a
/// pointer, so arguments go through the message iterators. `DBusError` and `DBusMessageIter` are
/// caller-allocated structs in libdbus' ABI; ``errorSize`` and ``iteratorSize`` are generous upper
/// bounds of their sizes (32 and 72 bytes on LP64), and only the error's two public fields (`name`,
/// `message`: the first two pointers) are read.
package struct LibDBus: @unchecked Sendable {  // C function pointers into a library that is never unloaded
    /// `DBUS_BUS_SYSTEM`.
    static let systemBus: Int32 = 1
    /// Bytes reserved for a `DBusError`.
    static let errorSize = 64
    /// Bytes reserved for a `DBusMessageIter`.
    static let iteratorSize = 128

    let errorInit: @convention(c) (UnsafeMutableRawPointer) -> Void
    let errorFree: @convention(c) (UnsafeMutableRawPointer) -> Void
    let busGetPrivate: @convention(c) (Int32, UnsafeMutableRawPointer) -> OpaquePointer?
    let setExitOnDisconnect: @convention(c) (OpaquePointer, UInt32) -> Void
    let connectionClose: @convention(c) (OpaquePointer) -> Void
    let connectionUnref: @convention(c) (OpaquePointer) -> Void
    let connectionIsConnected: @convention(c) (OpaquePointer) -> UInt32
    let readWrite: @convention(c) (OpaquePointer, Int32) -> UInt32
    let popMessage: @convention(c) (OpaquePointer) -> OpaquePointer?
    let send: @convention(c) (OpaquePointer, OpaquePointer, UnsafeMutablePointer<UInt32>?) -> UInt32
    let flush: @convention(c) (OpaquePointer) -> Void
    let sendWithReplyAndBlock: @convention(c) (OpaquePointer, OpaquePointer, Int32, UnsafeMutableRawPointer) -> OpaquePointer?
    let newMethodCall: @convention(c) (UnsafePointer<CChar>?, UnsafePointer<CChar>, UnsafePointer<CChar>?, UnsafePointer<CChar>) -> OpaquePointer?
    let newMethodReturn: @convention(c) (OpaquePointer) -> OpaquePointer?
    let newError: @convention(c) (OpaquePointer, UnsafePointer<CChar>, UnsafePointer<CChar>?) -> OpaquePointer?
    let messageUnref: @convention(c) (OpaquePointer) -> Void
    let messageType: @convention(c) (OpaquePointer) -> Int32
    let messagePath: @convention(c) (OpaquePointer) -> UnsafePointer<CChar>?
    let messageInterface: @convention(c) (OpaquePointer) -> UnsafePointer<CChar>?
    let messageMember: @convention(c) (OpaquePointer) -> UnsafePointer<CChar>?
    let messageSender: @convention(c) (OpaquePointer) -> UnsafePointer<CChar>?
    let messageErrorName: @convention(c) (OpaquePointer) -> UnsafePointer<CChar>?
    let messageNoReply: @convention(c) (OpaquePointer) -> UInt32
    let messageSetSender: @convention(c) (OpaquePointer, UnsafePointer<CChar>?) -> UInt32
    let messageSetSerial: @convention(c) (OpaquePointer, UInt32) -> Void
    let iterInitAppend: @convention(c) (OpaquePointer, UnsafeMutableRawPointer) -> Void
    let iterAppendBasic: @convention(c) (UnsafeMutableRawPointer, Int32, UnsafeRawPointer) -> UInt32
    let iterInit: @convention(c) (OpaquePointer, UnsafeMutableRawPointer) -> UInt32
    let iterArgType: @convention(c) (UnsafeMutableRawPointer) -> Int32
    let iterGetBasic: @convention(c) (UnsafeMutableRawPointer, UnsafeMutableRawPointer) -> Void
    let iterNext: @convention(c) (UnsafeMutableRawPointer) -> UInt32

    /// The library, loaded once; the failure says why it could not be.
    package static let shared: Result<LibDBus, BluezAgentError> = load()

    private static func load() -> Result<LibDBus, BluezAgentError> {
        guard let handle = dlopen("libdbus-1.so.3", RTLD_NOW | RTLD_LOCAL) else {
            let reason = dlerror().map { String(cString: $0) } ?? "not found"
            return .failure(.libraryMissing(reason: reason))
        }
        var missing: [String] = []
        func resolve<F>(_ name: String) -> F {
            if let pointer = dlsym(handle, name) { return unsafeBitCast(pointer, to: F.self) }
            missing.append(name)
            return unsafeBitCast(UnsafeMutableRawPointer(bitPattern: 1)!, to: F.self)  // never called: the load fails below
        }
        let library = LibDBus(
            errorInit: resolve("dbus_error_init"), errorFree: resolve("dbus_error_free"),
            busGetPrivate: resolve("dbus_bus_get_private"), setExitOnDisconnect: resolve("dbus_connection_set_exit_on_disconnect"),
            connectionClose: resolve("dbus_connection_close"), connectionUnref: resolve("dbus_connection_unref"),
            connectionIsConnected: resolve("dbus_connection_get_is_connected"),
            readWrite: resolve("dbus_connection_read_write"), popMessage: resolve("dbus_connection_pop_message"),
            send: resolve("dbus_connection_send"), flush: resolve("dbus_connection_flush"),
            sendWithReplyAndBlock: resolve("dbus_connection_send_with_reply_and_block"),
            newMethodCall: resolve("dbus_message_new_method_call"), newMethodReturn: resolve("dbus_message_new_method_return"),
            newError: resolve("dbus_message_new_error"), messageUnref: resolve("dbus_message_unref"),
            messageType: resolve("dbus_message_get_type"), messagePath: resolve("dbus_message_get_path"),
            messageInterface: resolve("dbus_message_get_interface"), messageMember: resolve("dbus_message_get_member"),
            messageSender: resolve("dbus_message_get_sender"), messageErrorName: resolve("dbus_message_get_error_name"),
            messageNoReply: resolve("dbus_message_get_no_reply"), messageSetSender: resolve("dbus_message_set_sender"),
            messageSetSerial: resolve("dbus_message_set_serial"),
            iterInitAppend: resolve("dbus_message_iter_init_append"), iterAppendBasic: resolve("dbus_message_iter_append_basic"),
            iterInit: resolve("dbus_message_iter_init"), iterArgType: resolve("dbus_message_iter_get_arg_type"),
            iterGetBasic: resolve("dbus_message_iter_get_basic"), iterNext: resolve("dbus_message_iter_next"))
        // A library without one of them is not libdbus-1 as documented: never call into it.
        guard missing.isEmpty else { return .failure(.libraryMissing(reason: "libdbus-1.so.3 lacks \(missing.joined(separator: ", "))")) }
        return .success(library)
    }

    /// Runs `body` with an initialised `DBusError`, freed afterwards.
    func withError<T>(_ body: (UnsafeMutableRawPointer) throws(BluezAgentError) -> T) throws(BluezAgentError) -> T {
        let error = UnsafeMutableRawPointer.allocate(byteCount: Self.errorSize, alignment: 16)
        error.initializeMemory(as: UInt8.self, repeating: 0, count: Self.errorSize)
        errorInit(error)
        defer {
            errorFree(error)
            error.deallocate()
        }
        return try body(error)
    }

    /// The name and message of a set `DBusError`; `nil` when it is not set.
    static func errorContents(_ error: UnsafeMutableRawPointer) -> (name: String, message: String)? {
        guard let name = error.load(as: UnsafePointer<CChar>?.self) else { return nil }
        let message = error.load(fromByteOffset: MemoryLayout<UnsafeRawPointer>.size, as: UnsafePointer<CChar>?.self)
        return (String(cString: name), message.map { String(cString: $0) } ?? "")
    }
}
