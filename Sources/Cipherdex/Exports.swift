// `import Cipherdex` gives everything: the store, documents and attachments (CipherdexStore,
// which links SQLCipher and libsodium only), the text extractors (CipherdexExtraction, which
// links poppler) and the search library of this module.
@_exported import CipherdexExtraction
@_exported import CipherdexStore
