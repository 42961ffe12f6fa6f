package policy

// caseInsensitiveFS is set where the default file system ignores case, so that
// ~/.SSH/id_rsa is the same file as ~/.ssh/id_rsa to rules as it is to the kernel.
const caseInsensitiveFS = true
