package oneliner

import (
	"regexp"
	"strings"
	"sync"
)

// The pattern layer, one entry per language. Each regexp names the calls that do a kind
// of thing; the argument is read after the match (see Inspect). Go's regexp runs in time
// linear in the input, so no code string can make a pattern slow.

type deletePattern struct {
	re          *regexp.Regexp
	recursive   bool
	recursiveIf *regexp.Regexp // recursive when the call's arguments match (fs.rmSync(p, {recursive: true}))
	inMatch     bool           // the path is inside the match (Path('x').unlink())
}

type langPatterns struct {
	exec      *regexp.Regexp // calls that run a shell command; the match ends before the argument
	backticks bool           // `cmd`, %x(cmd), qx{cmd} run shell commands
	shellTags bool           // $`cmd`, Bun.$`cmd`, execa`cmd`: tagged templates run shell commands
	deletes   []deletePattern
	reads     *regexp.Regexp // calls that open a file, read unless writeMode matches the arguments
	writeMode *regexp.Regexp
	writes    *regexp.Regexp // calls that write a file
	fork      *regexp.Regexp // a process fork
	forkBomb  *regexp.Regexp // a fork loop in one expression
	envDump   *regexp.Regexp // the whole environment printed or serialised
	socket    *regexp.Regexp // a network socket
	shellish  *regexp.Regexp // a shell started, or standard streams handed to something
	send      *regexp.Regexp // data sent over the network
	evalCall  *regexp.Regexp // eval/exec of code; the match ends before the argument
	decoder   *regexp.Regexp // a decoder in an eval's argument
	download  *regexp.Regexp // a download in an eval's argument
	envRead   *regexp.Regexp // an environment variable read by name; its groups capture the name
	credStore *regexp.Regexp // a library call that reads a keyring or a browser's credential store
	killAll   *regexp.Regexp // a signal sent to every process (pid -1) or to init (pid 1)
	// tlsOff is certificate checking switched off for the whole process: every HTTPS
	// request after it trusts whoever answers.
	tlsOff *regexp.Regexp
	// pipeTo is output written into a command (awk's print | "cmd"); the match ends with
	// the first character of the command, which runs, and which runs the text as code when
	// it is a shell.
	pipeTo *regexp.Regexp
	// pipeFrom is a command whose output the code reads ("cmd" | getline); its group
	// captures the command.
	pipeFrom *regexp.Regexp
}

// endlessLoop matches the loop forms a fork bomb uses. Like patterns, it is compiled on
// first use.
var endlessLoop = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`while\s*\(?\s*(1|[Tt]rue|42)\s*\)?|for\s*\(\s*;\s*;\s*\)|\bloop\s*(\{|do\b)|iter\(\s*int\s*,\s*1\s*\)|itertools\.count|\bwhile\s+1\b|\buntil\s*\(?\s*(false|0|nil)\b|\bwhile\s*\(?\s*fork\b|\brepeat\b[\s\S]*\buntil\s+false\b`)
})

// loopWaits matches, in a program's unit, a call that waits on each turn of a loop: for a
// connection, a child, input or time. A fork bomb waits for nothing.
var loopWaits = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`\b(?:accept|select|poll|epoll_wait|waitpid|wait|recv|recvfrom|sleep|join|input|readline|serve_forever|handle_request)\s*\(|\bawait\b|\.wait\s*\(`)
})

// handedToShell matches, in a program's unit, a socket handed to a process as its
// standard streams (dup2, a pty, stdin=sock, Perl's open(STDIN, …), Go's cmd.Stdin = c,
// Node's pipes into a child's stdin, a shell's <&3) or an interactive shell started (sh
// -i). A shell named alone is a program's everyday business.
var handedToShell = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`\bdup2?\s*\(|\bpty\.spawn|\bstd(?:in|out|err)\s*=\s*(?:s|sock|conn|client)\b|\bstdio\s*:\s*\[\s*(?:s|sock|socket|conn|client)\b|open\s*\(\s*STD(?:IN|OUT|ERR)` +
		`|\.Stdin\s*=\s*\w|\bStdin\s*,\s*\w+\.Stdout\b|\.pipe\s*\(\s*\w+\.stdin\s*\)|\.stdout\.pipe\s*\(|[<>]&\s*(?:\d|%d)|/bin/(?:ba|z|da|k)?sh\s+-i\b|["'](?:ba|z|da|k)?sh["']\s*,\s*["']-i["']`)
})

// spinOrHog matches code that exhausts the machine without a fork: an endless loop with an
// empty body (while True: pass, for(;;){}, 1 while 1, loop {}), or an allocation of a
// billion elements or more ('a' * 10**10, bytearray(10**12), Buffer.alloc(1e10)).
var spinOrHog = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`\bwhile\s+\(?\s*(?:True|1)\s*\)?\s*:\s*(?:pass|\.\.\.|continue)\b` +
		`|(?:\bwhile\s*\(\s*(?:true|1|!0)\s*\)|\bfor\s*\(\s*;\s*;\s*\))\s*(?:\{\s*\}|;)` +
		`|\b1[ \t]+while[ \t]+1\b|\bwhile\s*\(\s*1\s*\)\s*\{\s*\}|\bloop\s*(?:\{\s*\}|do\s*end)` +
		`|\*\s*10\s*\*\*\s*(?:9|[1-9]\d)\b|\b(?:bytearray|bytes|os\.urandom)\s*\(\s*10\s*\*\*\s*(?:9|[1-9]\d)\b` +
		`|\b(?:Buffer\.alloc(?:Unsafe)?|new\s+Array|new\s+ArrayBuffer)\s*\(\s*(?:1e(?:9|[1-9]\d)|\d{10,})\b|\bx\s*1e(?:9|[1-9]\d)\b`)
})

// exhausts returns the part of code that spins or hogs memory without end, or "". The end
// of a do … while (true); loop, whose body is before it, is no empty loop; nor is the text
// of a string literal (code a string holds and the program runs is inspected as code
// where it runs).
func exhausts(lang Lang, code string) string {
	var quoted []span
	for _, loc := range spinOrHog().FindAllStringIndex(code, maxCalls) {
		m := code[loc[0]:loc[1]]
		if strings.HasPrefix(m, "while") && strings.HasSuffix(strings.TrimRight(code[:loc[0]], " \t\n"), "}") {
			continue
		}
		if inLiteral(lang, code, loc[0], &quoted) {
			continue
		}
		return m
	}
	return ""
}

// inLiteral reports whether the byte at i of code is inside a string literal; quoted
// caches the literals' spans, read on first use.
func inLiteral(lang Lang, code string, i int, quoted *[]span) bool {
	if *quoted == nil {
		*quoted = stringSpans(lang, code)
		if *quoted == nil {
			*quoted = []span{}
		}
	}
	_, ok := spanAt(*quoted, i)
	return ok
}

// storeDestroyer matches, in any language, a client library's call that destroys a store
// or everything in one: a bucket, table, database, index or queue deleted, dropped or
// emptied (s3.delete_bucket, db.dropDatabase, index.clearObjects, redis flushall,
// repository.deleteAll(), AWS SDK v3's DeleteBucketCommand), as the cloud's and database's
// own command-line tools would be asked about. A call on one record (delete_item,
// deleteOne) or on a value in memory (map.delete, dict.clear) has no such noun.
var storeDestroyer = sync.OnceValue(func() *regexp.Regexp {
	const verb = `(?:delete|Delete|drop|Drop|destroy|Destroy|purge|Purge|truncate|Truncate|terminate|Terminate|remove|Remove|clear|Clear|wipe|Wipe|empty|Empty)`
	const store = `(?:[Bb]uckets?|[Tt]ables?|[Dd]atabases?|[Dd]b|[Cc]ollections?|[Ii]nd(?:ex|exes|ices)|[Qq]ueues?|[Tt]opics?|[Ss]treams?|[Cc]lusters?|[Ii]nstances|[Oo]bjects?|[Kk]eyspace|[Ss]ecrets?|[Ss]tacks?|[Ss]chemas?|[Rr]epositor(?:y|ies)|[Pp]rojects?|[Nn]amespaces?|[Vv]olumes?|[Ss]napshots?|[Bb]ackups?|[Ff]ile[Ss]ystems?|[Hh]osted[Zz]one|[Dd]istribution|[Vv]aults?|[Cc]ustomers|[Uu]sers|[Ss]ubscriptions|[Dd]eployments?|[Aa]ll)`
	return regexp.MustCompile(`(?:\.|->|::)` + verb + `_?` + store + `\s*\(` +
		`|(?:\.|->)(?:flushall|flushAll|FLUSHALL|flushdb|flushDb|flushDB|FLUSHDB|dropDatabase|deleteMany\(\s*\{\s*\}\s*\))\s*\(?` +
		`|\bnew\s+` + verb + `\w*Command\s*\(` +
		// Every row of a model's table: Rails' Order.delete_all (Order.where(…).delete_all
		// is a query's rows, as SQL's DELETE … WHERE), Django's Order.objects.all().delete().
		`|\b[A-Z]\w*(?:\.all)?\.(?:delete_all|destroy_all)\b|\.objects\.all\(\)\s*\.delete\(\s*\)` +
		// Laravel's Order::truncate(), Order::query()->delete().
		`|\b[A-Z]\w*::(?:truncate\s*\(|query\(\)\s*->\s*delete\(\s*\))`)
})

// destroysStore returns the call in code that destroys a store, or "".
func destroysStore(lang Lang, code string) string {
	var quoted []span
	for _, loc := range storeDestroyer().FindAllStringIndex(code, maxCalls) {
		if lang == Go && strings.HasPrefix(code[loc[0]:], ".RemoveAll") {
			continue // Go's RemoveAll deletes files (os.RemoveAll, a form's temporary files)
		}
		if inLiteral(lang, code, loc[0], &quoted) {
			continue
		}
		return code[loc[0]:loc[1]]
	}
	return ""
}

// backgrounded matches a shell command line, in a string, that ends by putting its
// command in the background: "x &", 'x & ', "x &>/dev/null &".
var backgrounded = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`[^&]&\s*["'\x60]`)
})

// urlHost matches a URL written in code, capturing its host.
var urlHost = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)\b(?:https?|wss?|ftp)://(?:[^/\s'"@\x60]*@)?(\[[0-9a-f:.]+\]|[^/\s'"\x60:?#\\]+)`)
})

var shellNames = `/bin/(ba|z|da|k)?sh\b|["'](ba|z|da|k)?sh["']|\bpty\.spawn|\bcmd\.exe`

// patterns holds each language's patterns, compiled on first use: most commands run no
// interpreter, and a hook process should not pay for compiling them.
var patterns = sync.OnceValue(func() map[Lang]*langPatterns {
	return map[Lang]*langPatterns{
		Python: {
			exec: regexp.MustCompile(`\)\.(system|popen)\s*\(|\b(os\.system|os\.popen|subprocess\.(run|call|check_call|check_output|Popen|getoutput|getstatusoutput)|commands\.getoutput|pty\.spawn|os\.exec[lv]p?e?|os\.spawn[lv]p?e?|asyncio\.create_subprocess_(?:shell|exec))\s*\(|\b(?:c|ctx|context|conn|connection)\.(?:run|sudo|local)\s*\(`),
			deletes: []deletePattern{
				{re: regexp.MustCompile(`\bshutil\.rmtree\s*\(`), recursive: true},
				{re: regexp.MustCompile(`\bos\.(remove|unlink|rmdir|removedirs)\s*\(`)},
				{re: regexp.MustCompile(`\b(pathlib\.)?Path\s*\(\s*(?:r|b)?["'][^"']*["']\s*\)\s*\.\s*(unlink|rmdir)\s*\(`), inMatch: true},
			},
			reads:     regexp.MustCompile(`\b(open|io\.open|codecs\.open)\s*\(`),
			writeMode: regexp.MustCompile(`,\s*(mode\s*=\s*)?["'][^"']*[wax+][^"']*["']`),
			fork:      regexp.MustCompile(`\bos\.fork\s*\(|\bfork\s*\(`),
			envDump:   regexp.MustCompile(`\bos\.environ\s*(\)|\.items\s*\(|\.keys\s*\(|\.values\s*\(|\.copy\s*\(|$|[;,\n])|\bdict\s*\(\s*os\.environ\s*\)|\bos\.environ\s*\}`),
			socket:    regexp.MustCompile(`\bsocket\.(socket|create_connection)\s*\(`),
			shellish:  regexp.MustCompile(`\bsubprocess\.|\bos\.dup2\s*\(|\bos\.system\s*\(|` + shellNames),
			send:      regexp.MustCompile(`\burlopen\s*\([^)]*data\s*=|\bRequest\s*\((?:[^()]|\([^()]*\))*\bdata\s*=|\brequests\.(post|put|patch)\s*\(|\.sendall?\s*\(|\.request\s*\(\s*["'](POST|PUT)`),
			evalCall:  regexp.MustCompile(`\b(exec|eval)\s*\(`),
			decoder:   regexp.MustCompile(`b64decode|base64|b32decode|codecs\.decode|fromhex|unhexlify|zlib\.decompress|marshal\.loads|rot.?13|bz2\.decompress|lzma\.decompress`),
			download:  regexp.MustCompile(`urlopen|requests\.get|urllib|http\.client|httpx`),
			killAll:   regexp.MustCompile(`\bos\.kill\s*\(\s*-?1\s*,|\bos\.killpg\s*\(\s*1\s*,`),
			credStore: regexp.MustCompile(`\bkeyring\.get_(?:password|credential)\b|\b(?:browser_cookie3|browsercookie|pycookiecheat|secretstorage|rookiepy)\b|\bCryptUnprotectData\b|\bSecKeychainFindGenericPassword\b`),
			envRead:   regexp.MustCompile(`\bos\.environ(?:\.get)?\s*[\[(]\s*["']([A-Za-z_][A-Za-z0-9_]*)["']|\bos\.getenv\s*\(\s*["']([A-Za-z_][A-Za-z0-9_]*)["']`),
			tlsOff:    regexp.MustCompile(`\bssl\._create_default_https_context\s*=|\bos\.environ\s*\[\s*["'](?:PYTHONHTTPSVERIFY|NODE_TLS_REJECT_UNAUTHORIZED)["']\s*\]\s*=\s*["']0`),
		},
		Perl: {
			exec:      regexp.MustCompile(`\b(system|exec)\b\s*\(?|\bqx\s*\(|\bopen\s*\(?\s*\w+\s*,\s*["']\||\bopen\s*\(?\s*(?:my\s+)?[$*]?\w+\s*,\s*["'](?:\|-|-\|)["']\s*,`),
			backticks: true,
			deletes: []deletePattern{
				{re: regexp.MustCompile(`\b(rmtree|remove_tree)\s*\(?`), recursive: true},
				{re: regexp.MustCompile(`\b(unlink|rmdir)\s*\(?`)},
			},
			reads:    regexp.MustCompile(`\bopen\s*\(?\s*(my\s+)?\$?\w+\s*,\s*(["']<["']\s*,\s*)?`),
			fork:     regexp.MustCompile(`\bfork\b`),
			forkBomb: regexp.MustCompile(`\bfork\s+while\s+(1|fork)\b|\bfork\s+until\s+0|fork\s*\(\s*\)\s*while\s*\(?\s*(1|fork)|\bfork\s*(&&|\|\||and|or)\s*fork\s+while\b`),
			envDump:  regexp.MustCompile(`\bprint\s+%ENV|\bkeys\s*\(?\s*%ENV|Dumper\s*\(\s*\\%ENV|\beach\s*\(?\s*%ENV|\bjoin\s*\([^)]*%ENV`),
			socket:   regexp.MustCompile(`\buse\s+Socket\b|IO::Socket|\bsocket\s*\(`),
			shellish: regexp.MustCompile(`\bexec\s*\(?|\bsystem\s*\(?|open\s*\(\s*STD(IN|OUT|ERR)|` + shellNames),
			send:     regexp.MustCompile(`\bprint\s+\$?S\b|->send\b|\bPOST\b|->post\b`),
			evalCall: regexp.MustCompile(`\beval\s*\(?`),
			decoder:  regexp.MustCompile(`decode_base64|MIME::Base64|pack\s*\(?\s*["']H|unpack|decode_hex|rot13`),
			download: regexp.MustCompile(`\bget\s*\(\s*["']https?:|LWP|HTTP::Tiny`),
			envRead:  regexp.MustCompile(`\$ENV\{\s*["']?([A-Za-z_][A-Za-z0-9_]*)`),
			tlsOff:   regexp.MustCompile(`\$ENV\{\s*["']?PERL_LWP_SSL_VERIFY_HOSTNAME["']?\s*\}\s*=\s*["']?0|\$IO::Socket::SSL::\w*\s*=[^;\n]*SSL_VERIFY_NONE|IO::Socket::SSL::set_(?:defaults|ctx_defaults)\s*\([^)]*SSL_VERIFY_NONE`),
			killAll:  regexp.MustCompile(`\bkill\s*\(?\s*["']?-?\w+["']?\s*,\s*-?1\s*[,;)]|\bkill\s*\(?\s*["']?-?\w+["']?\s*,\s*-?1\s*$`),
		},
		Ruby: {
			// sh is Rake's (and FileUtils'): a Rakefile's sh 'cmd' runs cmd in a shell.
			exec:      regexp.MustCompile(`\b(system|exec|spawn|sh|IO\.popen|Open3\.\w+|Kernel\.(system|exec|spawn)|FileUtils\.sh)\b\s*\(?`),
			backticks: true,
			deletes: []deletePattern{
				{re: regexp.MustCompile(`\bFileUtils\.(rm_rf|rm_r|remove_dir|remove_entry|remove_entry_secure|rmtree)\s*\(?`), recursive: true},
				{re: regexp.MustCompile(`\bFileUtils\.(rm|rm_f|remove|rmdir)\b\s*\(?|\bFile\.(delete|unlink)\b\s*\(?|\bDir\.(delete|rmdir|unlink)\b\s*\(?`)},
			},
			reads:     regexp.MustCompile(`\b(File|IO)\.(read|readlines|open|binread)\s*\(?`),
			writeMode: regexp.MustCompile(`,\s*["'][wa]`),
			fork:      regexp.MustCompile(`\bfork\b|Process\.fork`),
			envDump:   regexp.MustCompile(`\bENV\.(to_h|to_a|to_hash|each|each_pair|inspect|keys|map)\b|\b(p|pp|puts|print)\s*\(?\s*ENV\b\s*(\)|$|[;\n]|\.to)`),
			socket:    regexp.MustCompile(`\bTCPSocket\b|\bSocket\.(new|tcp)|UDPSocket`),
			shellish:  regexp.MustCompile(`\bexec\b|\bspawn\b|\bsystem\b|\bIO\.popen|` + shellNames),
			send:      regexp.MustCompile(`\.(write|puts|send)\s*\(|Net::HTTP\.post|\.post\s*\(`),
			evalCall:  regexp.MustCompile(`\b(eval|instance_eval|class_eval)\s*\(?`),
			decoder:   regexp.MustCompile(`Base64|decode64|unpack|\[\s*["']H|rot13|Zlib`),
			download:  regexp.MustCompile(`open\s*\(\s*["']https?:|URI\.open|Net::HTTP\.get|open-uri|HTTParty|Faraday`),
			envRead:   regexp.MustCompile(`\bENV(?:\.fetch\s*\(|\[)\s*["']([A-Za-z_][A-Za-z0-9_]*)["']`),
			tlsOff:    regexp.MustCompile(`\bOpenSSL::SSL::VERIFY_PEER\s*=\s*OpenSSL::SSL::VERIFY_NONE|\bENV\s*\[\s*["'](?:SSL_VERIFY|NODE_TLS_REJECT_UNAUTHORIZED)["']\s*\]\s*=\s*["'](?:0|false|none)`),
			killAll:   regexp.MustCompile(`\bProcess\.kill\s*\(?\s*[^,]+,\s*-?1\s*\)?\s*($|[;)\n])`),
		},
		Node: {
			exec:      regexp.MustCompile(`\b(exec|execSync|spawn|spawnSync|execFile|execFileSync|fork)\s*\(`),
			shellTags: true,
			deletes: []deletePattern{
				{re: regexp.MustCompile(`\b(rmSync|rmdirSync|rm|rmdir)\s*\(`), recursiveIf: regexp.MustCompile(`recursive\s*:\s*true`)},
				{re: regexp.MustCompile(`\b(unlinkSync|unlink)\s*\(`)},
			},
			reads:    regexp.MustCompile(`\b(readFileSync|readFile|createReadStream)\s*\(`),
			fork:     regexp.MustCompile(`\b(fork|spawn|exec)\s*\(`),
			forkBomb: regexp.MustCompile(`while\s*\(\s*(true|1)\s*\)\s*\{?[^}]*(fork|spawn)\s*\(|\bfork\s*\(\s*(__filename|process\.argv\[1\]|require\.main\.filename)`),
			envDump:  regexp.MustCompile(`\bprocess\.env\s*(\)|$|[;,\n}])|JSON\.stringify\s*\(\s*process\.env\s*\)|Object\.(keys|entries|values)\s*\(\s*process\.env\s*\)`),
			socket:   regexp.MustCompile(`\bnet\.(connect|Socket|createConnection)|require\(\s*["']net["']\s*\)|\bdgram\.`),
			shellish: regexp.MustCompile(`child_process|\bspawn\s*\(|\bexec\s*\(|` + shellNames),
			// A write on a request or a socket sends; one on a stream (process.stdout,
			// a file) does not.
			send:      regexp.MustCompile(`method\s*:\s*["'](POST|PUT|PATCH)["']|\bbody\s*:|\b(?:req|request|socket|sock|s|c|client|conn|connection|ws)\.write\s*\(|\.post\s*\(|\.request\s*\(`),
			evalCall:  regexp.MustCompile(`\b(eval|Function|vm\.runInThisContext|vm\.runInNewContext)\s*\(`),
			decoder:   regexp.MustCompile(`atob|base64|['"]hex['"]|Buffer\.from|fromCharCode|unescape|decodeURIComponent`),
			download:  regexp.MustCompile(`fetch\s*\(|https?\.get|axios|require\(\s*["']https?["']\)`),
			killAll:   regexp.MustCompile(`\bprocess\.kill\s*\(\s*-?1\s*[,)]`),
			credStore: regexp.MustCompile(`\bkeytar\b|chrome-cookies-secure|\b(?:getPassword|findCredentials)\s*\(`),
			envRead:   regexp.MustCompile(`\b(?:process|Deno|Bun)\.env\.([A-Za-z_][A-Za-z0-9_]*)|\b(?:process|Bun)\.env\[\s*["']([A-Za-z_][A-Za-z0-9_]*)["']|Deno\.env\.get\(\s*["']([A-Za-z_][A-Za-z0-9_]*)["']`),
			tlsOff:    regexp.MustCompile(`\bprocess\.env(?:\.NODE_TLS_REJECT_UNAUTHORIZED|\[\s*["']NODE_TLS_REJECT_UNAUTHORIZED["']\s*\])\s*=\s*["']?0|\bsetGlobalDispatcher\s*\((?:[^()]|\([^()]*\))*rejectUnauthorized\s*:\s*false|\bhttps\.globalAgent\.options\.rejectUnauthorized\s*=\s*false`),
		},
		PHP: {
			exec:      regexp.MustCompile(`\b(system|exec|shell_exec|passthru|popen|proc_open|pcntl_exec)\s*\(`),
			backticks: true,
			deletes: []deletePattern{
				{re: regexp.MustCompile(`\b(unlink|rmdir)\s*\(`)},
			},
			reads:     regexp.MustCompile(`\b(file_get_contents|fopen|file|readfile)\s*\(`),
			writeMode: regexp.MustCompile(`,\s*["'][^"']*[waxc+]`),
			fork:      regexp.MustCompile(`\bpcntl_fork\s*\(`),
			envDump:   regexp.MustCompile(`\bgetenv\s*\(\s*\)|\b(print_r|var_dump|var_export|json_encode)\s*\(\s*\$_(ENV|SERVER)\b`),
			socket:    regexp.MustCompile(`\bfsockopen\s*\(|\bsocket_create\s*\(|\bstream_socket_client\s*\(`),
			shellish:  regexp.MustCompile(`\b(exec|shell_exec|system|passthru|popen|proc_open)\s*\(|` + shellNames),
			send:      regexp.MustCompile(`\bfwrite\s*\(|\bcurl_exec\s*\(|\bstream_context_create\s*\(|\bHttp::(?:\w+\([^)]*\)->)*(?:post|put|patch|send)\s*\(|->request\s*\(\s*["'](?:POST|PUT|PATCH)`),
			evalCall:  regexp.MustCompile(`\b(eval|assert|create_function)\s*\(`),
			decoder:   regexp.MustCompile(`base64_decode|gzinflate|gzuncompress|str_rot13|hex2bin|convert_uudecode`),
			download:  regexp.MustCompile(`file_get_contents\s*\(\s*["']https?:|curl_exec`),
			envRead:   regexp.MustCompile(`\bgetenv\s*\(\s*["']([A-Za-z_][A-Za-z0-9_]*)["']|\$_(?:ENV|SERVER)\[\s*["']([A-Za-z_][A-Za-z0-9_]*)["']`),
			tlsOff:    regexp.MustCompile(`\bstream_context_set_default\s*\((?:[^()]|\([^()]*\))*["']verify_peer(?:_name)?["']\s*=>\s*false|\bputenv\s*\(\s*["']NODE_TLS_REJECT_UNAUTHORIZED=0`),
			killAll:   regexp.MustCompile(`\bposix_kill\s*\(\s*-?1\s*,`),
		},
		Awk: {
			exec:     regexp.MustCompile(`\bsystem\s*\(`),
			fork:     regexp.MustCompile(`\bfork\s*\(`),
			envDump:  regexp.MustCompile(`\bin\s+ENVIRON\b`),
			socket:   regexp.MustCompile(`/inet[46]?/(tcp|udp)/`),
			shellish: regexp.MustCompile(`\|&|\|\s*getline|` + shellNames),
			send:     regexp.MustCompile(`\|&`),
			envRead:  regexp.MustCompile(`\bENVIRON\[\s*"([A-Za-z_][A-Za-z0-9_]*)"`),
			writes:   regexp.MustCompile(`\bprintf?\b(?:[^;{}|>"]|"[^"]*")*>>?\s*`),
			// print … | CMD, and gawk's coprocess print … |& CMD, which runs CMD as well.
			pipeTo:   regexp.MustCompile(`\bprintf?\b(?:[^;{}|>"]|"[^"]*")*\|&?\s*[^&\s]`),
			pipeFrom: regexp.MustCompile(`"((?:[^"\\]|\\.)*)"\s*\|\s*getline`),
		},
		// Go, in the project's source files: os/exec (and mage's sh), os's file calls,
		// net/http.
		Go: {
			exec: regexp.MustCompile(`\bexec\.Command\s*\(|\bexec\.CommandContext\s*\(\s*[\w.]+(?:\(\s*\))?\s*,|\bsh\.(?:Run|RunV|Output)\s*\(|\bplugin\.Open\s*\(`),
			deletes: []deletePattern{
				{re: regexp.MustCompile(`\bos\.RemoveAll\s*\(`), recursive: true},
				{re: regexp.MustCompile(`\bos\.Remove\s*\(`)},
			},
			reads:     regexp.MustCompile(`\b(?:os\.ReadFile|ioutil\.ReadFile|os\.Open|os\.OpenFile)\s*\(`),
			writeMode: regexp.MustCompile(`\bO_(?:WRONLY|RDWR|APPEND|CREATE|TRUNC)\b`),
			writes:    regexp.MustCompile(`\b(?:os\.WriteFile|ioutil\.WriteFile|os\.Create)\s*\(`),
			envDump:   regexp.MustCompile(`\bos\.Environ\s*\(\s*\)`),
			socket:    regexp.MustCompile(`\bnet\.Dial(?:Timeout|TCP|UDP)?\s*\(`),
			shellish:  regexp.MustCompile(`\bexec\.Command(?:Context)?\s*\(|` + shellNames),
			send:      regexp.MustCompile(`\bhttp\.(?:Post|PostForm)\s*\(|\bhttp\.NewRequest(?:WithContext)?\s*\([^)\n]*"(?:POST|PUT|PATCH)"`),
			download:  regexp.MustCompile(`\bhttp\.Get\s*\(`),
			envRead:   regexp.MustCompile(`\bos\.(?:Getenv|LookupEnv)\s*\(\s*["']([A-Za-z_][A-Za-z0-9_]*)["']`),
			tlsOff:    regexp.MustCompile(`\bhttp\.DefaultTransport\b[\s\S]{0,200}?\bInsecureSkipVerify\s*:\s*true|\bhttp\.DefaultTransport\.\(\*http\.Transport\)\.TLSClientConfig\s*=`),
		},
		Lua: {
			exec: regexp.MustCompile(`\b(os\.execute|io\.popen)\s*\(?`),
			deletes: []deletePattern{
				{re: regexp.MustCompile(`\bos\.remove\s*\(`)},
			},
			reads:     regexp.MustCompile(`\bio\.open\s*\(`),
			writeMode: regexp.MustCompile(`,\s*["'][wa]`),
			fork:      regexp.MustCompile(`\bfork\s*\(`),
			socket:    regexp.MustCompile(`require\s*\(?\s*["']socket["']|socket\.tcp|socket\.connect`),
			shellish:  regexp.MustCompile(`io\.popen|os\.execute|` + shellNames),
			evalCall:  regexp.MustCompile(`\b(load|loadstring|dostring)\s*\(`),
			decoder:   regexp.MustCompile(`base64|from_hex|unhex`),
			envRead:   regexp.MustCompile(`\bos\.getenv\s*\(\s*["']([A-Za-z_][A-Za-z0-9_]*)["']`),
		},
		// do shell script runs a shell; Terminal's do script and iTerm's write text type
		// a command line into a terminal, System Events' keystroke into whatever has the
		// focus; JXA's doShellScript is do shell script.
		AppleScript: {
			exec: regexp.MustCompile(`\bdo\s+(shell\s+)?script\s+|\bwrite\s+text\s+|\bkeystroke\s+|\bdoShellScript\s*\(\s*`),
			// A dialog that hides what is typed asks the user for a password, whoever's
			// name it shows: the answer is a credential the script collects.
			credStore: regexp.MustCompile(`(?i)\bdisplay\s+dialog\b[^\n]*\bhidden\s+answer\b|\bdisplayDialog\s*\([^\n]*\bhiddenAnswer\s*:\s*true`),
		},
	}
})

// keywords are, per language, words at least one of which appears in any code a pattern
// of the language matches. TestKeywordsCoverPatterns checks them against the corpus. Like
// patterns, they are built on first use.
var keywords = sync.OnceValue(func() map[Lang][]string {
	return map[Lang][]string{
		Python:      {"](", "from sh", "import sh", "modules", "getattr", "setattr", "__import__", "importlib", "compile", "globals", "locals", "vars", "__dict__", "builtins", "shutil", "Path", "rename", "replace", "symlink", "link", "truncate", "chmod", "chown", "utime", "mkfifo", "mknod", "system", "popen", "subprocess", "commands", "spawn", "exec", "rmtree", "remove", "unlink", "rmdir", "open", "write_", "fork", "environ", "getenv", "socket", "eval", "loads", "urlopen", "requests", ".send", ".request", "urllib", "http", "httpx", "keyring", "cookie", "secretstorage", "rookiepy", "CryptUnprotectData", "SecKeychain", "kill", "_https_context"},
		Perl:        {"rename", "copy", "move", "symlink", "link", "&$", "&{", "system", "exec", "qx", "`", "open", "rmtree", "remove_tree", "unlink", "rmdir", "fork", "ENV", "Socket", "socket", "print", "send", "POST", "post", "eval", "get", "LWP", "HTTP", "kill", "SSL"},
		Ruby:        {"](", "send", "__send__", "method", "const_get", "Kernel", "Pathname", "require", "load", "instance_eval", "class_eval", "module_eval", "system", "sh", "exec", "spawn", "popen", "Open3", "`", "%x", "FileUtils", "File", "Dir", "IO", "fork", "ENV", "Socket", "write", "puts", "send", "post", "eval", "open", "URI", "Net::HTTP", "HTTParty", "Faraday", "kill", "VERIFY_NONE"},
		Node:        {"](", "process[", "require", "import", "global", "constructor", "binding", "mainModule", "Deno", "Bun", "rename", "copy", "cp", "symlink", "link", "truncate", "chmod", "chown", "utimes", "open", "Reflect", "exec", "spawn", "fork", "rm", "unlink", "read", "write", "append", "Stream", "env", "net", "dgram", "method", "body", "post", "request", "eval", "Function", "vm.", "_compile", "fetch", "http", "axios", "keytar", "cookies", "Password", "Credentials", "kill", "rejectUnauthorized", "TLS_REJECT"},
		PHP:         {")(", "](", "call_user_func", "forward_static_call", "rename", "copy", "symlink", "link", "touch", "$", "system", "exec", "passthru", "popen", "proc_open", "`", "unlink", "rmdir", "file", "fopen", "readfile", "fork", "getenv", "_ENV", "_SERVER", "sock", "fwrite", "curl", "stream", "eval", "assert", "create_function", "kill"},
		Awk:         {"system", "fork", "ENVIRON", "/inet", "|&", "getline", "print"},
		Go:          {"exec.", "sh.", "os.", "ioutil.", "net.", "http."},
		Lua:         {"[", "rename", "require", "rawget", "_G", "execute", "popen", "remove", "open", "fork", "socket", "load", "dostring", "getenv"},
		AppleScript: {"shell", "script", "text", "keystroke", "Script", "hidden answer", "hiddenAnswer"},
	}
})
