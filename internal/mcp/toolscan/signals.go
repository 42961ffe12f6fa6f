package toolscan

import (
	"regexp"
	"strings"
	"sync"
	"unicode"
)

// Poisoning signals: what the general prompt-injection detector of package scan does not
// look for, because it only means something in a tool's definition. A description
// that names another server's tool, a parameter that asks for "the conversation so far",
// a path to a private key beside the word "parameter": each is ordinary in a web page or
// a README and suspicious in the text a model reads to learn what a tool does.
//
// Each signal has a weight. A tool is reported when the combined weight of the distinct
// signals found anywhere in its definition (noisy-or, as in package scan) reaches
// threshold: strong signals are reported alone, medium ones need a second. Every signal
// has positive and negative cases in testdata/signals.txt.

// threshold is the score from which a tool's signals are reported.
const threshold = 0.6

// Signal weights.
const (
	strong = 0.9
	firm   = 0.7
	medium = 0.5
	weak   = 0.3
)

// signal is one kind of evidence of poisoning, as data.
type signal struct {
	Name   string
	Kind   string // finding id
	Weight float64
	// Keywords are lower-case strings one of which must occur in the text for Pattern
	// to run; without keywords Pattern always runs. Also, when set, are further strings
	// one of which must occur too: the other half of a phrase, so that a pattern whose
	// verb is in every tool description ("read", "use") runs only when its object is
	// there as well.
	Keywords, Also []string
	// Pattern is matched, ignoring case, on the text as scan.Fold normalises it: on the
	// whole text, or, when Before or After is set, only around each occurrence of a
	// keyword (Before bytes before it, After bytes after its end), for patterns too
	// costly to try at every position of a long description.
	Pattern       string
	Before, After int
	// Verify, when set, vets a match; m holds the submatch offsets in s.
	Verify func(sc *scope, s string, m []int) bool
	// Find, for signals that are code rather than a pattern, returns the matches.
	Find func(sc *scope, s string) []span
	// Decode marks the signal of instructions encoded in base64 or hex, which runs the
	// other signals on what it decodes.
	Decode bool
	// Terse signals can match a string without spaces ("~/.ssh/id_rsa" as a default
	// value, "<system>" as an enum value); the others need a sentence, and are not run
	// on the type names, formats and enum values that make up most of a schema.
	Terse bool

	re *regexp.Regexp
}

// signalTable is the compiled table and the index of its keywords.
type signalTable struct {
	list  []*signal
	index *keywordIndex
	// refs lists, for each keyword of the index, the signals that have it in Keywords
	// (also false) or in Also (also true).
	refs [][]keywordRef
}

type keywordRef struct {
	signal int
	also   bool
}

// scope is what a signal may know besides the text: whose text it is and what else the
// agent can call.
type scope struct {
	tool   string          // the tool whose definition this is
	param  string          // the parameter this text documents, or ""
	own    map[string]bool // the names of the server's tools
	others map[string]bool // the names of other servers' tools, less the server's own
	// desc is the description, when the text being read is the description; its
	// first sentence may be the tool describing itself (see self).
	desc     string
	selfEnd  int
	selfDone bool
}

// self returns where the description's first sentence ends when that sentence
// describes the tool itself (see selfDescription), and 0 when it does not or when the
// text being read is not the description. It is computed when first needed: few texts
// ever ask.
func (sc *scope) self() int {
	if !sc.selfDone {
		sc.selfEnd, sc.selfDone = selfDescription(sc.desc), true
	}
	return sc.selfEnd
}

// Shared pieces of patterns.
const (
	// secretPathExpr matches files that hold credentials or an agent's configuration:
	// nothing a tool's documentation needs the model to open.
	secretPathExpr = `(?:\bid_(?:rsa|dsa|ecdsa|ed25519)\b(?:\.pub\b)?|\.ssh\b(?:/[\w.-]*)?|\.aws/(?:credentials|config)\b|\.netrc\b|\.git-credentials\b|/etc/shadow\b|\.npmrc\b|\.pypirc\b|\.kube/config\b|\.docker/config\.json|\bcredentials\.json\b|\bmcp\.json\b|claude_desktop_config|\.cursor/|\.codeium/|\.claude(?:\.json\b|/)|\.gnupg\b|\.config/gh/hosts|\.(?:bash|zsh)_history\b|\bwallet\.dat\b|\bcookies\.sqlite\b|\blogin data\b|\bkeychain\b)`
	// readObjectExpr is what an order to read must name to be an order to steal: a
	// credential file, the environment, any file in a home directory.
	readObjectExpr = `(?:` + secretPathExpr + `|(?:^|[\s` + "`" + `'"(])\.env\b|/etc/passwd\b|~/[\w.]|\$home\b|%userprofile%|/(?:home|users)/[\w.-]+/\.|\b(?:ssh|private|secret|signing)\s+keys?\b|\benvironment\s+variables\b|\benv\s+vars\b|\bsecrets?\s+files?\b|\bcredentials?\s+files?\b)`
	// preconditionWords start a clause that says what must happen before a tool is
	// used, in the languages the corpus has seen this in.
	paramNounExpr = `(?:parameter|argument|param|field|property|input|parámetro|paramètre|parametro|parâmetro|campo|champ|feld|参数|参數|параметр|поле|パラメータ|引数|매개변수)`
)

// signals returns the table of poisoning signals.
func signals() []*signal { return compiled().list }

// compiled returns the table compiled, on first use: the proxy compiles it once, and
// nothing else pays for it.
var compiled = sync.OnceValue(func() *signalTable {
	table := []*signal{
		// --- Files and credentials --------------------------------------------------------
		{
			Name: "order to read a credential file", Kind: FindPoisoning, Weight: 0.8,
			Keywords: []string{"~/", ".ssh", "id_", ".aws", ".netrc", ".git-credentials", "/etc/", ".npmrc", ".pypirc", ".kube", ".docker", "credential", "mcp.json", "claude", ".cursor", ".codeium", ".gnupg", "/gh/", "_history", "wallet", "cookies", "login data", "keychain", ".env", "$home", "%userprofile%", "/home/", "/users/", " key", "environment", "env var", "secret"},
			Also:     []string{"read", "open", "cat ", "load", "fetch", "retrieve", "get", "collect", "gather", "access", "grab", "copy", "dump", "print", "look up", "include", "lee", "lire", "lis ", "lies", "leggi", "leia", "прочитай", "读取", "讀取", "読み取"},
			// The verb must be an order: at the start of a clause, or after a word that
			// makes it one ("first read", "you must open"). "Reads the key from
			// ~/.ssh/id_ed25519" documents the tool; "read ~/.ssh/id_rsa" instructs.
			// The keyword is the object, at the end of the match.
			Before: 200, After: 40,
			Pattern: `((?:[.!?;:>]\s*|\n\s*|,\s*|\b(?:first|then|and|also|please|always|must|should|need\s+to|have\s+to|required\s+to|remember\s+to|you|now)\s+|\b(?:before|prior\s+to|when|whenever|after)\s+(?:\w+\s+){0,3}?))?` +
				`(?:\b(?:read|open|cat|load|fetch|retrieve|get|collect|gather|access|grab|copy|dump|print|look\s+up|include|lee|lire|lis|lies|leggi|leia)\b|прочитай|读取|讀取|読み取)(?:[^.\n]|\.\S){0,60}?` + readObjectExpr,
			Verify: func(sc *scope, s string, m []int) bool {
				if publicPath(s, m[1]) {
					return false // public material, meant to be shared
				}
				if m[2] < 0 && !clauseStart(s, m[0]) {
					return false // "already read", "Reads": not an order
				}
				if m[0] < sc.self() {
					return false // the tool describing itself
				}
				// "the tool needs to read ~/.kube/config" documents what the tool does.
				before := strings.ToLower(s[runeStart(s, max(0, m[0]-24)):m[0]])
				for _, subj := range []string{"it ", "tool ", "server ", "cli ", "which ", "that ", "this ", "we ", "client "} {
					if strings.HasSuffix(before, subj) {
						return false
					}
				}
				return !negatedAt(s, m[0])
			},
		},
		{
			Name: "credential file named", Kind: FindPoisoning, Weight: medium, Terse: true,
			Before: 24, After: 48,
			Keywords: []string{"id_", ".ssh/", ".aws/", ".netrc", ".git-credentials", "/etc/shadow", ".npmrc", ".pypirc", ".kube/", ".docker/", "credentials.json", "mcp.json", "claude_desktop", ".cursor/", ".codeium/", ".claude", ".gnupg", "/gh/hosts", "_history", "wallet.dat", "cookies.sqlite", "login data", "keychain"},
			Pattern:  secretPathExpr,
			Verify:   func(sc *scope, s string, m []int) bool { return !publicPath(s, m[1]) },
		},

		// --- Data carried in parameters ---------------------------------------------------
		{
			Name: "data into a parameter", Kind: FindPoisoning, Weight: strong,
			// The match ends at the parameter's noun or quoted name.
			Before: 240, After: 60,
			Keywords: []string{"parameter", "argument", "param", "field", "property", "input", "as '", "as \"", "as `", "in '", "in \"", "in `", "into `", "into '", "into \""},
			Also:     []string{"pass", "put", "include", "insert", "add", "send", "provide", "embed", "place", "append", "attach", "supply", "copy", "paste", "fill", "store", "write"},
			Pattern: `\b(?:pass|put|include|insert|add|send|provide|embed|place|append|attach|supply|copy|paste|fill|store|write)\b((?:[^.\n]|\.\S){0,80}?)\b(?:as|in|into|inside|via|through|to|within|under|using)\s+(?:the\s+|a\s+|an\s+|this\s+|its\s+|the\s+tool'?s\s+)?` +
				`(?:[` + "`" + `'"]?([\w-]+)[` + "`" + `'"]?\s+` + paramNounExpr + `\b|[` + "`" + `'"]([\w-]+)[` + "`" + `'"])`,
			Verify: func(sc *scope, s string, m []int) bool {
				object := strings.ToLower(s[m[2]:m[3]])
				param := ""
				for _, g := range []int{4, 6} {
					if m[g] >= 0 {
						param = strings.ToLower(s[m[g]:m[g+1]])
					}
				}
				if strongObject().MatchString(object) {
					return !negatedAt(s, m[0])
				}
				// Contents, a token, the conversation with a customer: data that some
				// parameters are for ("pass the file contents in the `content` parameter"
				// documents a write tool). It is carried off only in a parameter that no
				// tool's work needs.
				if !sideChannel[param] || !weakObject().MatchString(object) {
					return false
				}
				return !negatedAt(s, m[0])
			},
		},
		{
			Name: "asks for the conversation", Kind: FindPoisoning, Weight: medium,
			Before: 40, After: 40,
			Keywords: []string{"conversation", "chat", "session", "previous", "everything", "so far", "transcript"},
			Pattern:  `\b(?:(?:this|the\s+current|our|the\s+entire|the\s+whole|the\s+full|the\s+ongoing|your)\s+(?:conversation|chat|session)(?:\s+(?:history|so\s+far|transcript|log|context))?|(?:conversation|chat)\s+(?:history\s+)?so\s+far|(?:all\s+)?(?:the\s+)?previous\s+(?:messages|user\s+messages|turns|prompts|replies)|everything\s+(?:the\s+user|you)\s+(?:has\s+|have\s+)?(?:said|typed|written|asked|shared|seen)|(?:full|entire|complete)\s+(?:chat\s+)?transcript)\b`,
			Verify:   func(sc *scope, s string, m []int) bool { return !negatedAt(s, m[0]) },
		},
		{
			Name: "asks for the model's instructions", Kind: FindPoisoning, Weight: 0.8,
			Before: 80, After: 40,
			Keywords: []string{"system prompt", "instructions", "system message", "context window"},
			Pattern:  `\b(?:(?:your|the\s+(?:model|assistant|agent)'?s?)\s+(?:full\s+|entire\s+|complete\s+|original\s+|initial\s+|hidden\s+|own\s+)?(?:system\s+(?:prompt|message|instructions)|instructions|context\s+window)|(?:the|its)\s+(?:full\s+|entire\s+|complete\s+)?system\s+prompt)\b`,
			Verify: func(sc *scope, s string, m []int) bool {
				// "according to your instructions" and "follow your instructions" point
				// at them; an order to hand them over names them as an object.
				before := strings.ToLower(s[runeStart(s, max(0, m[0]-20)):m[0]])
				for _, w := range []string{"follow ", "according to ", "per ", "with ", "obey ", "by ", "under "} {
					if strings.HasSuffix(before, w) {
						return false
					}
				}
				// "the system prompt" is anyone's: a chatbot's settings have one. It is the
				// model's own only as the object of handing it over.
				match := strings.ToLower(s[m[0]:m[1]])
				if strings.HasPrefix(match, "the system") || strings.HasPrefix(match, "its ") || strings.HasPrefix(match, "the full") || strings.HasPrefix(match, "the entire") || strings.HasPrefix(match, "the complete") {
					if !handOver().MatchString(strings.ToLower(s[runeStart(s, max(0, m[0]-30)):m[0]])) {
						return false
					}
				}
				return !negatedAt(s, m[0])
			},
		},
		{
			Name: "side-channel parameter", Kind: FindPoisoning, Weight: medium,
			Find: func(sc *scope, s string) []span {
				if !sideChannel[strings.ToLower(sc.param)] {
					return nil
				}
				if loc := sideChannelAsk().FindStringIndex(s); loc != nil {
					return []span{{loc[0], loc[1]}}
				}
				return nil
			},
		},
		{
			// Language-neutral half of an order to carry data: a word for contents
			// beside a word for parameter. Only counts with a credential file named.
			Name: "contents into a parameter", Kind: FindPoisoning, Weight: weak,
			Before: 120, After: 120,
			Keywords: []string{"content", "contenido", "contenu", "inhalt", "conteúdo", "conteudo", "contenuto", "内容", "содержим", "中身"},
			Also:     []string{"parameter", "argument", "param", "field", "property", "input", "parámetro", "paramètre", "parametro", "parâmetro", "campo", "champ", "feld", "参数", "參數", "параметр", "поле", "パラメータ", "引数", "매개변수"},
			Pattern:  `(?:content|contenido|contenu|inhalt|conteúdo|conteudo|contenuto|内容|содержим\p{L}*|中身)[^\n]{0,80}?` + paramNounExpr + `|` + paramNounExpr + `[^\n]{0,80}?(?:content|contenido|contenu|inhalt|conteúdo|conteudo|contenuto|内容|содержим\p{L}*|中身)`,
		},

		// --- Concealment --------------------------------------------------------------------
		{
			Name: "keep it from the user", Kind: FindPoisoning, Weight: 0.8,
			Keywords: []string{"user", "human", "operator", "secretly", "silently", "quietly", "covertly", "discreetly"},
			Also:     []string{"not", "n't", "never", "no need", "avoid", "without", "keep", "hide", "secretly", "silently", "quietly", "covertly", "discreetly"},
			Before:   120, After: 80,
			Pattern: `\b(?:do\s+not|don't|dont|never|no\s+need\s+to|must\s+not|mustn't|should\s+not|shouldn't|avoid)\s+(?:\w+\s+){0,2}?(?:mention(?:ing)?|tell(?:ing)?|say(?:ing)?|inform(?:ing)?|notify(?:ing)?|alert(?:ing)?|reveal(?:ing)?|disclos(?:e|ing)|explain(?:ing)?|report(?:ing)?|bring(?:ing)?\s+up|surfac(?:e|ing)|acknowledg(?:e|ing)|let(?:ting)?)\b([^.\n]{0,50}?)\b(?:the\s+)?(?:user|human|operator|requester)\b(?:[^'’]|$)` +
				`|\b(?:the\s+)?user\s+(?:does\s+not|doesn't|should\s+not|shouldn't|must\s+not|mustn't|need\s+not|needn't|will\s+not|won't)\s+(?:need\s+to\s+)?(?:know|see|notice|find\s+out|be\s+(?:told|informed|aware|bothered|shown))\b` +
				`|\bwithout\s+(?:telling|informing|notifying|alerting|mentioning\s+(?:it|this|that)\s+to)\s+(?:the\s+)?(?:user|human|operator)\b` +
				`|\b(?:keep|hide)\s+(?:this|these|it|that|the\s+\w+)\s+(?:\w+\s+)?(?:from|hidden\s+from|secret\s+from)\s+(?:the\s+)?(?:user|human|operator)\b` +
				`|\b(?:secretly|silently|quietly|covertly|discreetly)\s+(?:\w+\s+){0,2}?(?:read|send|include|add|pass|upload|copy|forward|attach|append|bcc|cc|redirect|collect|call|invoke)\b`,
			Verify: func(sc *scope, s string, m []int) bool {
				match := strings.ToLower(s[m[0]:m[1]])
				// "do not tell the user to run the installer": advice about what to
				// suggest, not something hidden from them.
				after := strings.TrimSpace(strings.ToLower(s[m[1]:runeEnd(s, min(len(s), m[1]+24))]))
				if strings.HasPrefix(after, "to ") || strings.HasSuffix(strings.TrimSpace(match), "to") {
					return false
				}
				// "never show the user's password", "do not reveal to the user the key":
				// the user's secret, kept off the screen.
				return !secretWord().MatchString(match) && !(strings.HasPrefix(after, "the ") && secretWord().MatchString(after))
			},
		},
		{
			// The same order in the other languages the corpus has: a pattern of its own,
			// so that English text does not pay for trying them.
			Name: "keep it from the user (translated)", Kind: FindPoisoning, Weight: 0.8,
			Keywords: []string{"usuario", "utilisateur", "benutzer", "nutzer", "anwender", "utente", "usuário", "用户", "用戶", "пользовател", "ユーザー", "사용자"},
			Before:   120, After: 80,
			Pattern: `no\s+(?:se\s+lo\s+|le\s+)?(?:digas|diga|menciones|mencione|informes|informe)\s+(?:nada\s+)?(?:al|a\s+los)\s+usuarios?` +
				`|ne\s+(?:le\s+|lui\s+|rien\s+)?(?:dis|dites|mentionne[sz]?|signale[sz]?|informe[sz]?)\s+(?:pas|rien|jamais)\s+(?:\p{L}+\s+){0,2}?(?:à\s+)?l'utilisateur` +
				`|(?:sag|sage|teile|informiere)\s+(?:\p{L}+\s+){0,3}?(?:dem|den)\s+(?:benutzer|nutzer|anwender)\s+(?:\p{L}+\s+){0,2}?nicht|(?:dem|den)\s+(?:benutzer|nutzer|anwender)\s+nicht\s+(?:sagen|mitteilen|erwähnen|verraten)` +
				`|non\s+(?:dirlo|dire|menzionare|informare|rivelare)\s+(?:\p{L}+\s+){0,2}?(?:all'|l')utente` +
				`|não\s+(?:diga|conte|mencione|informe|revele)\s+(?:\p{L}+\s+){0,2}?(?:ao|o)\s+usuário` +
				`|不要(?:告诉|告訴|通知|提醒|让|讓)(?:用户|用戶)|(?:用户|用戶)不(?:需要|必|应|應)知道` +
				`|не\s+(?:говори|сообщай|рассказывай|упоминай)\s+(?:\p{L}+\s+){0,2}?пользовател` +
				`|ユーザー(?:に|には)(?:\p{L}{0,6})(?:伝えない|言わない|知らせない)` +
				`|사용자(?:에게|한테)\s*(?:\p{L}+\s+)?(?:알리지|말하지)`,
		},

		// --- Tags and hidden text -----------------------------------------------------------
		{
			Name: "instruction tag", Kind: FindPoisoning, Weight: firm, Terse: true,
			Before: 8, After: 64,
			Keywords: []string{"<"},
			Also:     []string{"important", "critical", "mandatory", "urgent", "priority", "hidden", "secret", "instruction", "directive", "system", "admin", "override", "ai", "note", "assistant", "model", "agent", "llm", "claude", "gpt"},
			Pattern:  `<\s*/?\s*(?:important|critical|mandatory|urgent|priority|hidden|secret|instructions?|directive|system|admin|override|ai[-_ ]?(?:note|instructions?)|note[-_ ]?(?:to|for)[-_ ]?(?:the[-_ ])?(?:ai|assistant|model|llm|agent)|assistant|model|agent|llm|claude|gpt)\b[^<>\n]{0,40}>`,
		},
		{
			Name: "hidden comment", Kind: FindHidden, Weight: firm,
			Find: func(sc *scope, s string) []span {
				var out []span
				for _, c := range comments(s) {
					body := strings.ToLower(s[c.lo:c.hi])
					if len(strings.Fields(body)) >= 3 && commentOrder().MatchString(body) {
						out = append(out, c)
					}
				}
				return out
			},
		},
		{
			Name: "padding that pushes text out of view", Kind: FindHidden, Weight: 0.4,
			Find: func(sc *scope, s string) []span {
				run, lines := 0, 0
				for i, r := range s {
					if unicode.IsSpace(r) {
						run++
						if r == '\n' {
							lines++
						}
						continue
					}
					if (run >= 60 || lines >= 8) && len(strings.TrimSpace(s[i:])) >= 20 {
						return []span{{i, min(len(s), i+60)}}
					}
					run, lines = 0, 0
				}
				return nil
			},
		},
		{
			Name: "encoded instructions", Kind: FindHidden, Weight: strong,
			Decode: true,
		},

		// --- Shadowing ------------------------------------------------------------------------
		{
			Name: "orders for when another tool is used", Kind: FindShadowing, Weight: strong,
			Before: 0, After: 300,
			Keywords: []string{"when", "if ", "each time", "every time", "any time", "before", "after", "once"},
			Also:     []string{"used", "called", "invoked", " run", "executed", "triggered", "tool", "function", "action", "you call", "you use", "you invoke"},
			Pattern: `\b(?:when(?:ever)?|if|each\s+time|every\s+time|any\s+time|before|after|once)\s+(?:(?:the|any|a|an)\s+|(you\s+(?:use|call|invoke|run))\s+(?:the\s+|any\s+)?)?` +
				"[`'\"]?([\\w.-]+)[`'\"]?" + `(\s+(?:tool|function|mcp\s+tool|action))?(?:\s+(?:is|gets|was|has\s+been|are))?(\s+(?:used|called|invoked|run|executed|triggered))?\b` +
				`(?:[^.\n]|\.\S){0,120}?\b(?:always|must|should|make\s+sure|ensure|instead|change|replace|set|add|include|bcc|cc|redirect|forward|remember)\b`,
			Verify: func(sc *scope, s string, m []int) bool {
				you, toolWord, verb := m[2] >= 0, m[6] >= 0, m[8] >= 0
				if !you && !toolWord && !verb {
					return false // "if the repository is archived, set…"
				}
				return namesAnotherTool(sc, strings.ToLower(s[m[4]:m[5]]), toolWord)
			},
		},
		{
			Name: "orders for another tool", Kind: FindShadowing, Weight: strong,
			Before: 100, After: 60,
			Keywords: []string{"tool", "function"},
			Also:     []string{"must", "should", "shall", "will now", "need", "has to", "is required", "now"},
			Pattern:  "\\bthe\\s+[`'\"]?([\\w.-]+)[`'\"]?\\s+(?:tool|function)\\s+(?:must|should|shall|will\\s+now|needs?\\s+to|has\\s+to|is\\s+required\\s+to|now\\s+(?:needs|requires|has))\\b",
			Verify: func(sc *scope, s string, m []int) bool {
				return namesAnotherTool(sc, strings.ToLower(s[m[2]:m[3]]), true)
			},
		},
		{
			Name: "orders for every other tool", Kind: FindShadowing, Weight: 0.8,
			Before: 40, After: 180,
			Keywords: []string{"other tool", "subsequent", "future", "later", "following", "every tool", "all tool", "any tool", "other function", "other call", "other request"},
			Pattern:  `\b(?:all|any|every|each)\s+(?:other\s+|subsequent\s+|future\s+|later\s+|following\s+)+(?:tool\s+calls?|tools?|calls?|functions?|requests?)\b[^.\n]{0,80}?\b(?:must|should|always|include|add|pass|send|set|append|prepend|bcc|cc)\b`,
		},
		{
			Name: "steers away from another tool", Kind: FindShadowing, Weight: medium,
			Before: 0, After: 100,
			Keywords: []string{"instead of", "rather than", "never use", "not use", "don't use", "prefer this", "prefer it"},
			Pattern:  "\\b(?:instead\\s+of|rather\\s+than|never\\s+use|do\\s+not\\s+use|don't\\s+use|not\\s+use|prefer\\s+(?:this|it)\\s+(?:tool\\s+)?over)\\s+(?:the\\s+|any\\s+)?[`'\"]?([\\w.-]+)[`'\"]?(?:\\s+(tool|function))?",
			Verify: func(sc *scope, s string, m []int) bool {
				return namesAnotherTool(sc, strings.ToLower(s[m[2]:m[3]]), m[4] >= 0)
			},
		},
		{
			Name: "names another server's tool", Kind: FindShadowing, Weight: firm, Terse: true,
			Find: findOtherTools,
		},

		{
			Name: "orders for every other tool's result", Kind: FindShadowing, Weight: strong,
			Before: 0, After: 220,
			Keywords: []string{"whenever you", "every time you", "each time you", "after you", "when you"},
			Also:     []string{"another tool", "other tool", "another function", "other function"},
			Pattern:  `\b(?:whenever|every\s+time|each\s+time|after|when)\s+you\s+(?:read|use|call|run|open|fetch|get)\b[^.\n]{0,80}?\b(?:another|any\s+other|other)\s+(?:tools?|functions?)\b[^.\n]{0,100}?\b(?:call|use|invoke|pass|send|include|give)\b[^.\n]{0,30}?\bthis\s+(?:tool|function)\b`,
		},

		// --- Orders to run commands and to fetch secrets ---------------------------------------
		{
			// A definition is for learning what a tool does; a command it tells the model
			// to run is the attack itself: a download run in a shell, the home directory
			// or the root deleted. (What a tool does itself, "Append a key to
			// authorized_keys", is its description, not an order.)
			Name: "order to run a harmful command", Kind: FindPoisoning, Weight: strong,
			Before: 160, After: 60,
			Keywords: []string{"| sh", "|sh", "| bash", "|bash", "rm -rf"},
			Pattern:  `\b(?:run|execute|exec|paste|type|enter|invoke)\b(?:[^.\n]|\.\S){0,140}?(?:\b(?:curl|wget)\b[^|\n]{0,120}\|\s*(?:sudo\s+)?(?:ba|z)?sh\b|\brm\s+-[a-z]*(?:rf|fr)\s+(?:~|/|\$home)(?:[\s/*` + "`" + `'"]|$))`,
		},
		{
			// "The API key. Read it from the OPENAI_API_KEY environment variable": the model
			// told to fetch a secret for the server, which any honest server reads itself
			// ("if omitted, it is read from …").
			Name: "order to fetch a secret", Kind: FindPoisoning, Weight: firm,
			Before: 120, After: 80,
			Keywords: []string{"environment", ".env", "_key", "_token", "_secret", "_password", "env var"},
			Also:     []string{"key", "token", "secret", "password", "credential"},
			Pattern:  `(?:^|[.:;,]\s*|\b(?:and|then|please)\s+)(?:read|get|take|copy|fetch|look\s+up|find|grab|load)\s+(?:it|this|that|the\s+value|its\s+value|the\s+(?:api\s+)?(?:key|token|secret|password|credential)s?)\s+(?:from|out\s+of|in)\s+(?:the\s+|your\s+|the\s+user's\s+)?(?:[a-z][a-z0-9_]*_(?:key|token|secret|password)\b|\.env\b|environment\b|env\s+var)`,
		},

		// --- Redirection ----------------------------------------------------------------------
		{
			Name: "hidden recipient", Kind: FindPoisoning, Weight: 0.8,
			Before: 200, After: 100,
			Keywords: []string{"@"},
			Pattern:  `\b(?:always|also|secretly|silently|automatically|every|all)\b[^.\n]{0,40}?\b(?:bcc|cc|forward|copy|send|redirect|route|mirror|report)\b[^.\n]{0,60}?\b[\w.+-]+@([\w-]+(?:\.[\w-]+)+)`,
			Verify: func(sc *scope, s string, m []int) bool {
				return !exampleDomain(strings.ToLower(s[m[2]:m[3]]))
			},
		},
		{
			Name: "changes where data goes", Kind: FindPoisoning, Weight: medium,
			Before: 60, After: 120,
			Keywords: []string{"recipient", "destination", "address", "number", "url", "endpoint", "account"},
			Also:     []string{"replace", "change", "set ", "override", "overwrite", "switch"},
			// The new value must look like an address: "change the recipient to the new
			// owner" is a feature, "change the recipient to x@y.io" a redirection.
			Pattern: `\b(?:replace|change|set|override|overwrite|switch)\s+(?:the\s+|any\s+|every\s+)?(?:recipient|to\s+address|destination|e-?mail\s+address|phone\s+number|webhook\s+url|endpoint|target\s+account)s?(?:\s+\w+)?\s+(?:to|with|into)\s+(?:[\w.+-]+@|\+?\d|https?://|[\w-]+\.[a-z]{2,}\b)`,
		},
	}
	t := &signalTable{list: table}
	num := map[string]int{}
	var words []string
	for i, sg := range table {
		if sg.Pattern != "" {
			sg.re = regexp.MustCompile(`(?i)` + sg.Pattern)
		}
		for _, list := range []struct {
			words []string
			also  bool
		}{{sg.Keywords, false}, {sg.Also, true}} {
			for _, w := range list.words {
				n, ok := num[w]
				if !ok {
					n = len(words)
					num[w] = n
					words = append(words, w)
					t.refs = append(t.refs, nil)
				}
				t.refs[n] = append(t.refs[n], keywordRef{i, list.also})
			}
		}
	}
	t.index = newKeywordIndex(words)
	return t
})

// strongObject is data whose passing in any parameter is theft: a credential file, the
// conversation, the model's own instructions. weakObject is data that a parameter may
// be meant for (a token parameter takes a token).
var (
	strongObject = lazyRegexp(`(?i)` + secretPathExpr + `|\b(?:this|the\s+current|our|the\s+entire|the\s+whole|the\s+full|your)\s+(?:conversation|chat)\b|\bconversation\s+(?:history|so\s+far)\b|\bchat\s+history\b|\bprevious\s+messages\b|\bsystem\s+prompt\b|\b(?:your|its)\s+instructions\b|\benvironment\s+variables\b|\benv\s+vars\b|\bprivate\s+keys?\b|\bssh\s+keys?\b|(?:^|\s)\.env\b|~/`)
	weakObject   = lazyRegexp(`(?i)\b(?:contents?|password|passwd|token|secret|credential|api[\s_-]?key|key|history|messages|memory|context|file|conversation|chat|transcript)s?\b`)
)

// secretWord names a secret the user keeps.
var secretWord = lazyRegexp(`\b(?:password|passwort|contraseña|mot de passe|passphrase|pin|secret|token|key|value|credentials?)\b`)

// clauseStart reports whether s[at] begins a clause: the start of the text, or after a
// line break or punctuation that ends one, with only spaces between.
func clauseStart(s string, at int) bool {
	before := strings.TrimRight(s[:at], " \t")
	return before == "" || strings.ContainsRune(".!?;:>,\n", rune(before[len(before)-1]))
}

// handOver is a verb that gives something away, before what is given.
var handOver = lazyRegexp(`\b(?:include|append|prepend|copy|paste|send|pass|add|attach|output|print|reveal|repeat|put|insert|provide|share|dump|return)\b`)

// publicPath reports whether the path that a match ends inside (at end) is public
// material that is meant to be shared or read: a public key, known_hosts,
// authorized_keys, an ssh client's config.
func publicPath(s string, end int) bool {
	for end < len(s) && !strings.ContainsRune(" \t\n`'\"()<>,;", rune(s[end])) {
		end++
	}
	lo := end
	for lo > 0 && !strings.ContainsRune(" \t\n`'\"()<>,;", rune(s[lo-1])) && end-lo < 256 {
		lo--
	}
	p := strings.TrimRight(strings.ToLower(s[lo:end]), ".:!?")
	return strings.HasSuffix(p, ".pub") || strings.HasSuffix(p, "known_hosts") || strings.HasSuffix(p, "authorized_keys") || strings.HasSuffix(p, ".ssh/config")
}

// sideChannel lists parameter names that no tool's work needs and that the published
// poisoning attacks use to carry stolen data out in an ordinary-looking call.
var sideChannel = map[string]bool{
	"sidenote": true, "side_note": true, "sidenotes": true, "note": true, "notes": true,
	"extra": true, "extra_info": true, "extra_context": true, "additional_context": true,
	"additional_info": true, "context": true, "metadata": true, "meta": true, "debug": true,
	"debug_info": true, "feedback": true, "reasoning": true, "thoughts": true, "remarks": true,
	"annotation": true, "annotations": true, "comment": true, "comments": true, "details": true,
	"info": true, "misc": true, "hidden": true, "secret": true, "aux": true, "diagnostics": true,
	"telemetry": true, "trace": true,
}

// sideChannelAsk is what a side-channel parameter's documentation asks for when it is
// used to carry data out.
var sideChannelAsk = lazyRegexp(`(?i)\b(?:contents?\s+of|full\s+text|file\s+contents?|conversation|chat\s+history|previous\s+messages|system\s+prompt|instructions|credentials?|api\s+keys?|private\s+keys?|ssh|tokens?|passwords?|secrets?|environment|env\s+vars?|config(?:uration)?\s+files?|everything|all\s+(?:the\s+)?(?:files?|data|messages|text))\b|~/`)

// commentOrder is what makes a comment's text an instruction rather than a note for
// maintainers.
var commentOrder = lazyRegexp(`\b(?:you|your|must|always|never|before|after|read|send|pass|include|call|use|tool|user|assistant|model|ai|llm|agent|important|ignore|secret|key|file|instead)\b`)

// comments returns the bodies of the HTML and markdown comments in s; an unclosed HTML
// comment runs to the end, since a renderer hides all of it.
func comments(s string) []span {
	var out []span
	for i := 0; i < len(s); {
		j := strings.Index(s[i:], "<!--")
		if j < 0 {
			break
		}
		lo := i + j + 4
		k := strings.Index(s[lo:], "-->")
		hi := len(s)
		if k >= 0 {
			hi = lo + k
		}
		out = append(out, span{lo, hi})
		i = min(len(s), hi+3)
	}
	for i := 0; i < len(s); {
		j := strings.Index(s[i:], "[//]: #")
		if j < 0 {
			break
		}
		lo := i + j + 7
		hi := strings.IndexByte(s[lo:], '\n')
		if hi < 0 {
			hi = len(s)
		} else {
			hi += lo
		}
		out = append(out, span{lo, hi})
		i = hi
	}
	return out
}

// namesAnotherTool reports whether name, taken from text about "the name tool" (toolWord)
// or about a name alone, is another tool than the speaker's own.
func namesAnotherTool(sc *scope, name string, toolWord bool) bool {
	name = strings.Trim(name, ".-")
	switch name {
	case "", "this", "that", "it", "the", "a", "an", "any", "tool", "function", "these", "those", "other", "another", "same", "next", "previous", "current", "first", "last", "user", "model", "assistant", "agent", "server", "you", "we", "they", "request", "call", "query", "result", "response", "operation", "command", "file", "new", "old", "following", "above", "below":
		return false
	}
	if name == strings.ToLower(sc.tool) || sc.own[name] {
		return false
	}
	if sc.others[name] {
		return true
	}
	return toolWord || distinctive(name)
}

// distinctive reports whether a tool name is an identifier that ordinary prose does not
// use: send_email, fetch-url, listIssues. "search" or "read" in a description is a word.
func distinctive(name string) bool {
	if len(name) < 3 {
		return false
	}
	for i := 1; i < len(name)-1; i++ {
		c := name[i]
		if c == '_' || c == '-' || c == '.' || '0' <= c && c <= '9' || 'A' <= c && c <= 'Z' && 'a' <= name[i-1] && name[i-1] <= 'z' {
			return true
		}
	}
	return false
}

// findOtherTools finds the names of other servers' tools in s. A distinctive name counts
// wherever it stands; a word-like name ("search") only where it is named as a tool: in
// code quotes, or followed by "tool".
func findOtherTools(sc *scope, s string) []span {
	if len(sc.others) == 0 {
		return nil
	}
	var out []span
	for i := 0; i < len(s); {
		if !isIdentByte(s[i]) {
			i++
			continue
		}
		j := i
		for j < len(s) && isIdentByte(s[j]) {
			j++
		}
		word := strings.TrimRight(s[i:j], ".-")
		end := i + len(word)
		if sc.others[strings.ToLower(word)] && !sc.own[strings.ToLower(word)] && !strings.EqualFold(word, sc.tool) {
			quoted := i > 0 && strings.IndexByte("`'\"", s[i-1]) >= 0
			named := strings.HasPrefix(strings.ToLower(strings.TrimLeft(s[end:], " ")), "tool")
			if distinctive(word) || quoted || named {
				out = append(out, span{i, end})
			}
		}
		i = j
	}
	return out
}

func isIdentByte(c byte) bool {
	return c == '_' || c == '-' || c == '.' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}

// exampleDomain reports whether a mail domain is one reserved for documentation
// (RFC 2606) or a placeholder.
func exampleDomain(d string) bool {
	for _, e := range []string{"example.com", "example.org", "example.net", "example", "test", "invalid", "localhost", "domain.com", "company.com", "yourcompany.com", "acme.com", "acme.test"} {
		if d == e || strings.HasSuffix(d, "."+e) {
			return true
		}
	}
	return false
}

// negatedAt reports whether a negation ends just before s[at]: "never read ~/.ssh".
func negatedAt(s string, at int) bool {
	before := strings.ToLower(s[runeStart(s, max(0, at-24)):at])
	words := strings.Fields(before)
	for _, w := range words[max(0, len(words)-3):] {
		switch strings.Trim(w, ".,;:!?\"'`") {
		case "never", "not", "don't", "dont", "do not", "shouldn't", "mustn't", "cannot", "can't", "won't", "avoid", "without":
			return true
		}
	}
	return false
}

// runeEnd moves i forward to the end of the rune that contains s[i-1].
func runeEnd(s string, i int) int {
	for i < len(s) && s[i]&0xC0 == 0x80 {
		i++
	}
	return i
}

// lazyRegexp compiles expr on first use: every moat process links this package (the
// hooks too, through the CLI) and most never inspect a tool list, so none should pay for
// its patterns at start.
func lazyRegexp(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}
