import Foundation

/// A PDF of `objects` written as given (numbered from 1, the first the catalog), with a correct
/// cross-reference table: for page trees, annotations, fonts and encodings that cairo does not
/// write (hostile and odd files in tests).
public func makeHandWrittenPDF(objects: [String]) -> [UInt8] {
    var output = "%PDF-1.4\n"
    var offsets: [Int] = []
    for (index, body) in objects.enumerated() {
        offsets.append(output.utf8.count)
        output += "\(index + 1) 0 obj\n\(body)\nendobj\n"
    }
    let xref = output.utf8.count
    output += "xref\n0 \(objects.count + 1)\n0000000000 65535 f \n"
    for offset in offsets { output += String(format: "%010d 00000 n \n", offset) }
    output += "trailer\n<< /Size \(objects.count + 1) /Root 1 0 R >>\nstartxref\n\(xref)\n%%EOF\n"
    return Array(output.utf8)
}
