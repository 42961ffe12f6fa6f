// Package confusable finds letters that imitate ASCII characters (homoglyphs) in command
// names, path segments and domain labels.
//
// An agent, or text it was shown, can spell a command, file or host with letters from
// another script that look like Latin ones: сurl with a Cyrillic с, /etc/pаsswd with a
// Cyrillic а, gіthub.com with a Ukrainian і, gοogle with a Greek omicron, ℯcho with a
// mathematical e. A reader, and a rule that matches names, sees curl, passwd, github.com
// and echo; the shell, the file system and the resolver see different names. moat reports
// such words so that a policy can deny them.
//
// ASCII and Skeleton map single runes to the ASCII character they imitate. Lookalikes
// decides whether a word is deceptive, following the idea of the mixed-script and
// whole-script confusable checks of UTS #39: a word whose every non-ASCII rune imitates
// ASCII (рор in Cyrillic reads as pop), or a run of letters that mixes Latin with another
// script (gіthub), is deceptive; ordinary words of one script (привет, αλφα, 東京, café)
// are not. Compatibility forms (ｃｕｒｌ, 𝐜𝐮𝐫𝐥) are reported too, although moat also
// normalises commands with NFKC and reports those forms on their own: Lookalikes works on
// raw input.
//
// # Data
//
// table.go is generated from Unicode's confusables.txt (UTS #39 Unicode Security
// Mechanisms, https://www.unicode.org/reports/tr39/), version 15.0.0, as the
// confusables.json that the Debian package python3-confusable-homoglyphs 3.2.0-2 ships.
// The JSON does not state its version. Debian regenerated the package's data files with
// its upstream tool, which fetches Public/security/latest/confusables.txt and
// UNIDATA/Scripts.txt: both files are dated 2022-10-21 in the package, its copyright file
// credits "© 2022 Unicode", and the companion categories.json has the scripts new in
// Unicode 15.0 (Kawi, Nag Mundari), so "latest" was 15.0.0, released 2022-09-13. (The
// newest characters in confusables.json itself are from Unicode 13.0, so the JSON alone
// cannot tell 13.0.0 from a later version.)
//
// confusables.txt lists every mathematical alphanumeric but only some fullwidth forms of
// ASCII; gen.go adds the others from their NFKC forms (golang.org/x/text, also Unicode
// 15.0.0), so that the skeleton of ｃｕｒｌ is curl.
//
// Only what moat needs is kept: non-ASCII runes confusable with one printable ASCII
// character (0x21-0x7E). Spaces are left out: other code reports invisible and space-like
// characters. gen.go documents how a group of lookalikes maps to one ASCII character; in
// short l, 1, I and | are one group and map to 'l', O and 0 map to 'O'.
//
// # Regenerating
//
// The JSON is not committed. To regenerate table.go, get the Debian package and run the
// generator on its JSON:
//
//	apt-get download python3-confusable-homoglyphs
//	dpkg -x python3-confusable-homoglyphs_*.deb /tmp/ch
//	cd internal/scan/confusable
//	go run gen.go -src /tmp/ch/usr/lib/python3/dist-packages/confusable_homoglyphs/confusables.json
//
// or install the package and run go generate in this directory. Update the -unicode and
// -debian flags when the data changes version.
package confusable

//go:generate go run gen.go -src /usr/lib/python3/dist-packages/confusable_homoglyphs/confusables.json
