package oneliner

import "sync"

// The knowledge constant folding uses, per language (see fold.go). Like the patterns, the
// tables are built on first use.

// foldFn is what a pure call computes from its folded arguments.
type foldFn uint8

const (
	fnIdentity foldFn = iota + 1 // its first argument: os.path.expanduser('~/x'), Path('x')
	fnJoin                       // its arguments joined as a path: os.path.join, path.join
	fnEnv                        // an environment variable: the home directory for HOME
	fnBase64                     // its first argument decoded from base64
	fnHex                        // its first argument decoded from hex
	fnBuffer                     // Buffer.from(s, encoding)
	fnChars                      // the characters of its numeric arguments: String.fromCharCode(124)
)

// foldCalls are the pure functions folded when every argument folds.
var foldCalls = sync.OnceValue(func() map[Lang]map[string]foldFn {
	return map[Lang]map[string]foldFn{
		Python: {
			"os.path.expanduser": fnIdentity, "os.path.abspath": fnIdentity, "os.path.realpath": fnIdentity,
			"os.path.normpath": fnIdentity, "os.path.expandvars": fnIdentity, "os.fspath": fnIdentity, "str": fnIdentity,
			"pathlib.Path": fnIdentity, "Path": fnIdentity, "pathlib.PurePath": fnIdentity, "PurePath": fnIdentity,
			"pathlib.PosixPath": fnIdentity, "PosixPath": fnIdentity,
			"chr": fnChars, "os.path.join": fnJoin, "posixpath.join": fnJoin,
			"os.getenv": fnEnv, "os.environ.get": fnEnv,
			"base64.b64decode": fnBase64, "base64.standard_b64decode": fnBase64, "base64.urlsafe_b64decode": fnBase64, "base64.decodebytes": fnBase64,
			"bytes.fromhex": fnHex, "binascii.unhexlify": fnHex, "binascii.a2b_hex": fnHex,
		},
		Node: {
			"String.fromCharCode": fnChars, "String.fromCodePoint": fnChars,
			"path.join": fnJoin, "path.resolve": fnJoin, "path.posix.join": fnJoin, "path.normalize": fnIdentity, "String": fnIdentity,
			"Deno.env.get": fnEnv, "atob": fnBase64, "Buffer.from": fnBuffer,
		},
		Ruby: {
			"File.expand_path": fnIdentity, "File.absolute_path": fnIdentity, "Pathname.new": fnIdentity, "Pathname": fnIdentity, "String": fnIdentity,
			"File.join": fnJoin, "ENV.fetch": fnEnv,
			"Base64.decode64": fnBase64, "Base64.strict_decode64": fnBase64, "Base64.urlsafe_decode64": fnBase64,
		},
		Perl: {
			"decode_base64": fnBase64, "MIME::Base64::decode_base64": fnBase64, "catfile": fnJoin, "File::Spec::catfile": fnJoin,
		},
		PHP: {
			"base64_decode": fnBase64, "hex2bin": fnHex, "getenv": fnEnv, "realpath": fnIdentity,
		},
		Lua: {
			"os.getenv": fnEnv,
		},
		Go: {
			"filepath.Join": fnJoin, "path.Join": fnJoin, "filepath.Clean": fnIdentity, "filepath.Abs": fnIdentity,
			"os.Getenv": fnEnv, "string": fnIdentity, "base64.StdEncoding.DecodeString": fnBase64,
			"base64.URLEncoding.DecodeString": fnBase64, "base64.RawStdEncoding.DecodeString": fnBase64,
		},
	}
})

// homeNames are names (or calls without arguments) whose value is the home directory.
var homeNames = sync.OnceValue(func() map[Lang]map[string]bool {
	return map[Lang]map[string]bool{
		Python: {"pathlib.Path.home": true, "Path.home": true},
		Node:   {"process.env.HOME": true, "process.env.USERPROFILE": true, "Bun.env.HOME": true, "os.homedir": true, "Deno.homeDir": true},
		Ruby:   {"Dir.home": true},
		Go:     {"os.UserHomeDir": true},
	}
})

// envObjects are the environment, read by subscript: os.environ['HOME'], $ENV{HOME}.
var envObjects = sync.OnceValue(func() map[Lang]map[string]bool {
	return map[Lang]map[string]bool{
		Python: {"os.environ": true},
		Node:   {"process.env": true, "Bun.env": true},
		Ruby:   {"ENV": true},
		Perl:   {"$ENV": true},
		PHP:    {"$_SERVER": true, "$_ENV": true},
	}
})

// concatOps are the operators that join strings; Python's / joins pathlib paths.
var concatOps = sync.OnceValue(func() map[Lang]map[string]bool {
	return map[Lang]map[string]bool{
		Python: {"+": true, "/": true},
		Node:   {"+": true},
		Ruby:   {"+": true, "<<": true},
		Perl:   {".": true},
		PHP:    {".": true},
		Lua:    {"..": true},
		Go:     {"+": true},
	}
})

// lookupForm is how a call that looks a name up is written once the name is known.
type lookupForm uint8

const (
	lkModule    lookupForm = iota + 1 // __import__('os') → os
	lkAttr                            // getattr(o, 'system') → o.system
	lkSend                            // o.send(:system, x) → o.system(x)
	lkCall                            // call_user_func('system', x) → system(x)
	lkCallArray                       // call_user_func_array('system', [x]) → system(x)
	lkMethod                          // method(:system).call(x) → system(x)
	lkCheck                           // require('child_' + 'process') → require('child_process')
	lkCheck1                          // setattr(o, name, v): the name must fold
)

// lookups are the calls that look a module or a function up by a name given as a value.
// A key that starts with a dot is a method of any receiver.
var lookups = sync.OnceValue(func() map[Lang]map[string]lookupForm {
	return map[Lang]map[string]lookupForm{
		Python: {
			"__import__": lkModule, "importlib.import_module": lkModule, "importlib.__import__": lkModule, "builtins.__import__": lkModule,
			"getattr": lkAttr, "builtins.getattr": lkAttr, "setattr": lkCheck1, "delattr": lkCheck1,
		},
		Node: {
			"require": lkCheck, "import": lkCheck, "module.require": lkCheck, "process.binding": lkCheck, "process._linkedBinding": lkCheck,
			"Reflect.get": lkAttr,
		},
		Ruby: {
			"send": lkSend, "public_send": lkSend, "__send__": lkSend, ".send": lkSend, ".public_send": lkSend, ".__send__": lkSend,
			"method": lkMethod, ".method": lkMethod, "public_method": lkMethod, ".public_method": lkMethod,
			"Object.const_get": lkModule, "Kernel.const_get": lkModule, "const_get": lkModule, ".const_get": lkModule,
			"require": lkCheck, "load": lkCheck,
		},
		PHP: {
			"call_user_func": lkCall, "call_user_func_array": lkCallArray, "forward_static_call": lkCall, "forward_static_call_array": lkCallArray,
			"array_map": lkCallArray, "register_shutdown_function": lkCall,
		},
		Lua: {
			"require": lkCheck, "rawget": lkAttr,
		},
	}
})

// receiverMethods are the methods of path objects that read, write or delete the path
// they are called on: Path(p).write_text(…) is written Path.write_text(p, …) for fileops.
var receiverMethods = sync.OnceValue(func() map[Lang]map[string]bool {
	return map[Lang]map[string]bool{
		Python: {"write_text": true, "write_bytes": true, "open": true, "touch": true, "unlink": true, "rmdir": true,
			"rename": true, "replace": true, "symlink_to": true, "hardlink_to": true, "link_to": true, "read_text": true, "read_bytes": true, "chmod": true},
		Ruby: {"write": true, "binwrite": true, "delete": true, "unlink": true, "rename": true, "make_symlink": true, "rmtree": true, "read": true},
	}
})

// starMembers are, per module, the members that the patterns and file operations know,
// which `from os import *` (Python) and `include FileUtils` (Ruby) bring in by bare name.
var starMembers = sync.OnceValue(func() map[string][]string {
	return map[string][]string{
		"os": {"system", "popen", "execl", "execle", "execlp", "execlpe", "execv", "execve", "execvp", "execvpe",
			"spawnl", "spawnle", "spawnlp", "spawnlpe", "spawnv", "spawnve", "spawnvp", "spawnvpe", "fork", "kill", "killpg",
			"remove", "unlink", "rmdir", "removedirs", "rename", "renames", "replace", "symlink", "link", "truncate", "chmod", "chown", "open", "environ", "getenv"},
		"subprocess": {"run", "call", "check_call", "check_output", "Popen", "getoutput", "getstatusoutput"},
		"shutil":     {"rmtree", "move", "copy", "copy2", "copyfile", "copytree"},
		"pty":        {"spawn"},
		"importlib":  {"import_module"},
		"base64":     {"b64decode", "standard_b64decode", "urlsafe_b64decode"},
		"FileUtils": {"rm", "rm_r", "rm_rf", "rm_f", "rmtree", "remove", "remove_dir", "remove_entry", "mv", "move", "cp", "copy", "cp_r",
			"ln", "ln_s", "ln_sf", "touch", "install"},
		"Open3": {"popen3", "popen2", "capture2", "capture2e", "capture3", "pipeline"},
	}
})
