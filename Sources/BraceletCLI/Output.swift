import Foundation

/// Writes a line to standard error (progress, warnings, errors), keeping stdout for data.
func printError(_ message: String) {
    FileHandle.standardError.write(Data((message + "\n").utf8))
}
