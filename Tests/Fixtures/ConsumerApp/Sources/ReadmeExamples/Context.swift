// What README.md's code blocks assume exists around them: the application's own functions and
// values. Each block is compiled as written inside `func example…(…) async throws` in
// Generated.swift (written by ConsumerFixtureTests), whose parameters are the values below.

import Cipherdex
import Foundation

func askForTheKeyAgain() {}
func openWithoutKey() {}
func pleaseUpgrade() {}
func restoreFromBackup() {}
func fixPermissions(_ path: String) {}
func freeSomeSpace() {}
func checkTheDisk(_ path: String) {}
func raiseTheFileSizeLimit(_ path: String) {}
func closeSomeFilesThenRetry(_ path: String) {}
func readPassphrase() -> String { "a passphrase" }
func consume(_ chunk: Data) {}
func printOnce<Value>(_ value: Value) {}

struct Address: Codable { var city: String }
struct Report: Codable {
    var title: String
    var file: AttachmentToken
}

/// The `patient` README's documents example inserts.
struct SamplePatient: Codable {
    var name = "Ada"
    var age = 36
}
