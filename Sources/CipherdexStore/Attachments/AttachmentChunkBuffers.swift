/// The buffers an attachment reader reuses for every chunk of a range read: plaintext (`chunkSize`
/// bytes, wiped before it is freed), sealed chunk (`chunkSize + 16`) and nonce. Memory stays flat
/// whatever the attachment's size.
final class AttachmentChunkBuffers {
    /// One chunk of plaintext.
    let plaintext: UnsafeMutableRawBufferPointer
    /// One chunk of ciphertext plus its tag.
    let sealed: UnsafeMutableRawBufferPointer
    /// The nonce of the chunk at hand.
    let nonce: UnsafeMutableRawBufferPointer

    init(chunkSize: Int, nonceBytes: Int) {
        plaintext = .allocate(byteCount: chunkSize, alignment: 64)
        sealed = .allocate(byteCount: chunkSize + AttachmentCipherFormat.chunkTagBytes, alignment: 64)
        nonce = .allocate(byteCount: nonceBytes, alignment: 8)
    }

    deinit {
        Sodium.memzero(plaintext)
        plaintext.deallocate()
        sealed.deallocate()
        nonce.deallocate()
    }
}
