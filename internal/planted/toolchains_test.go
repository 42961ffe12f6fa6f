package planted

import "testing"

// TestToolchainExtract checks the files that say where a build tool gets itself, its
// compiler or its packages: another source is found, the tool's own is not.
func TestToolchainExtract(t *testing.T) {
	for _, tt := range []struct {
		name, path, text string
		want             []string // the code found, in order; "opaque" for code moat cannot read
	}{
		{"gradle wrapper from Gradle", "gradle/wrapper/gradle-wrapper.properties", "distributionBase=GRADLE_USER_HOME\ndistributionPath=wrapper/dists\ndistributionUrl=https\\://services.gradle.org/distributions/gradle-8.7-bin.zip\nnetworkTimeout=10000\nvalidateDistributionUrl=true\nzipStoreBase=GRADLE_USER_HOME\nzipStorePath=wrapper/dists\n", nil},
		{"gradle wrapper continued line", "gradle/wrapper/gradle-wrapper.properties", "distributionUrl = https\\://services.gradle.org/\\\n    distributions/gradle-8.7-all.zip\n", nil},
		{"gradle wrapper from another host", "gradle/wrapper/gradle-wrapper.properties", "distributionUrl=https\\://gradle.mirror.example/gradle-8.7-bin.zip\n", []string{"opaque"}},
		{"gradle wrapper over http", "gradle/wrapper/gradle-wrapper.properties", "distributionUrl=http\\://services.gradle.org/distributions/gradle-8.7-bin.zip\n", []string{"opaque"}},
		{"gradle wrapper from a local file", "gradle/wrapper/gradle-wrapper.properties", "distributionUrl=file\\:/tmp/gradle-8.7-bin.zip\n", []string{"opaque"}},
		{"gradle wrapper from a relative file", "gradle/wrapper/gradle-wrapper.properties", "distributionUrl=gradle-8.7-bin.zip\n", []string{"opaque"}},
		{"gradle wrapper host in credentials", "gradle/wrapper/gradle-wrapper.properties", "distributionUrl: https\\://services.gradle.org@evil.example/g.zip\n", []string{"opaque"}},
		{"gradle wrapper unicode escape", "gradle/wrapper/gradle-wrapper.properties", "distributionUrl=https\\u003a//evil.example/g.zip\n", []string{"opaque"}},
		{"maven wrapper from Central", ".mvn/wrapper/maven-wrapper.properties", "distributionUrl=https://repo.maven.apache.org/maven2/org/apache/maven/apache-maven/3.9.6/apache-maven-3.9.6-bin.zip\nwrapperUrl=https://repo.maven.apache.org/maven2/org/apache/maven/wrapper/maven-wrapper/3.2.0/maven-wrapper-3.2.0.jar\n", nil},
		{"maven wrapper from repo1 and takari", ".mvn/wrapper/maven-wrapper.properties", "distributionUrl=https://repo1.maven.org/maven2/org/apache/maven/apache-maven/3.8.8/apache-maven-3.8.8-bin.zip\nwrapperUrl=https://repo1.maven.org/maven2/io/takari/maven-wrapper/0.5.6/maven-wrapper-0.5.6.jar\n", nil},
		{"maven wrapper from elsewhere", ".mvn/wrapper/maven-wrapper.properties", "distributionUrl=https://maven.evil.example/apache-maven-3.9.6-bin.zip\nwrapperUrl=http://repo.maven.apache.org/maven2/org/apache/maven/wrapper/maven-wrapper/3.2.0/maven-wrapper-3.2.0.jar\n", []string{"opaque", "opaque"}},
		{"maven wrapper from another group on Central", ".mvn/wrapper/maven-wrapper.properties", "distributionUrl=https://repo.maven.apache.org/maven2/com/evil/dist/1.0/dist-1.0.zip\n", []string{"opaque"}},
		{"maven wrapper climbing out of Maven's group", ".mvn/wrapper/maven-wrapper.properties", "distributionUrl=https://repo.maven.apache.org/maven2/org/apache/maven/../../../com/evil/x.zip\n", []string{"opaque"}},
		{"rust toolchain channel", "rust-toolchain.toml", "[toolchain]\nchannel = \"1.78\"\ncomponents = [\"rustfmt\", \"clippy\"]\ntargets = [\"wasm32-unknown-unknown\"]\nprofile = \"minimal\"\n", nil},
		{"rust toolchain directory", "rust-toolchain.toml", "[toolchain]\npath = \"/tmp/tc\"\n", []string{"rustup toolchain link toolchain /tmp/tc"}},
		{"rust toolchain directory fragment", "rust-toolchain.toml", "path = \"../tc\"\n", []string{"rustup toolchain link toolchain ../tc"}},
		{"rust toolchain older file", "rust-toolchain", "nightly-2024-05-01\n", nil},
		{"rust toolchain older file in TOML", "rust-toolchain", "[toolchain]\nchannel = \"stable\"\npath = \"/opt/tc\"\n", []string{"rustup toolchain link toolchain /opt/tc"}},
		{"nix settings", "~/.config/nix/nix.conf", "experimental-features = nix-command flakes\nmax-jobs = auto\nsubstituters = https://cache.nixos.org/\ntrusted-public-keys = cache.nixos.org-1:6NCHdD59X431o0gWypbMrAURkbJ16ZPMQFGspcDShjY=\n", nil},
		{"nix sources, keys and hooks", "/etc/nix/nix.conf", "extra-substituters = https://cache.example https://cache.nixos.org\ntrusted-substituters = http://cache.nixos.org\nextra-trusted-public-keys = cache.example-1:AAAA=\nrequire-sigs = false # trust me\npost-build-hook = /etc/nix/upload.sh\nbuild-hook = /tmp/hook --x\nplugin-files = /tmp/p.so\n# diff-hook = /tmp/d\n", []string{"opaque", "opaque", "opaque", "opaque", "/etc/nix/upload.sh", "/tmp/hook --x", "opaque"}},
		{"stack project", "stack.yaml", "resolver: lts-22.7\npackages:\n- .\n- libs/core\nextra-deps:\n- acme-missiles-0.3\n- text-2.1@sha256:abc,123\nflags: {}\n", nil},
		{"stack official setup", "stack.yaml", "snapshot: https://raw.githubusercontent.com/commercialhaskell/stackage-snapshots/master/lts/22/7.yaml\nsetup-info:\n  ghc:\n    linux64:\n      9.4.7:\n        url: \"https://downloads.haskell.org/~ghc/9.4.7/ghc-9.4.7-x86_64-deb10-linux.tar.xz\"\n        sha256: abc\n", nil},
		{"stack sources", "stack.yaml", "snapshot: https://evil.example/snap.yaml\nsetup-info-locations:\n- https://evil.example/setup.yaml\nsetup-info:\n  ghc:\n    linux64:\n      9.4.7:\n        url: /tmp/ghc.tar.xz\npackage-indices:\n- download-prefix: https://hackage.evil.example/\nextra-deps:\n- git: https://github.com/u/h.git\n  commit: abc\n- github: u/x\n  commit: def\n- url: https://x.example/p.tar.gz\n- ../outside\n- https://x.example/q.tar.gz\n- ./vendor/lib\npackages:\n- location:\n    git: https://github.com/u/old.git\n", []string{"opaque", "opaque", "opaque", "opaque", "opaque", "opaque", "opaque", "opaque", "opaque", "opaque"}},
		{"sbt options", ".sbtopts", "-J-Xmx2G\n-J-XX:+UseG1GC\n-Dsbt.color=true\n", nil},
		{"sbt options with an agent", ".sbtopts", "-J-Xmx2G\n-J-javaagent:/tmp/x.jar\n", []string{"opaque"}},
		{"jvm options", ".jvmopts", "-Xms1G\n-Xss4M\n", nil},
		{"jvm options with a native agent", ".jvmopts", "-Xms1G\n-agentpath:/tmp/a.so\n", []string{"opaque"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			checkExtract(t, tt.path, tt.text, tt.want)
		})
	}
}

// TestToolchainSettingsData: a wrapper's or nix.conf's settings are data of the file, so
// that an edit bumping a version is judged by what Extract finds in it.
func TestToolchainSettingsData(t *testing.T) {
	for _, tc := range []struct {
		path, text string
		want       bool
	}{
		{"/p/gradle/wrapper/gradle-wrapper.properties", "distributionUrl=https\\://services.gradle.org/distributions/gradle-8.8-bin.zip\n", true},
		{"/p/gradle/wrapper/gradle-wrapper.properties", "# bumped\nnetworkTimeout: 10000\n", true},
		{"/p/gradle/wrapper/gradle-wrapper.properties", "curl x | sh", false},
		{"/p/.mvn/wrapper/maven-wrapper.properties", "distributionUrl=https://repo.maven.apache.org/x.zip", true},
		{"/home/u/.config/nix/nix.conf", "max-jobs = 8\n", true},
		{"/p/rust-toolchain", "nightly-2024-05-01", true},
		{"/p/rust-toolchain.toml", "channel = \"1.79\"", true},
		{"/p/rust-toolchain", "rm -rf ~", false},
	} {
		f, ok := Lookup(tc.path, "/home/u")
		if !ok {
			t.Fatalf("no kind for %s", tc.path)
		}
		if got := f.IsData(tc.text); got != tc.want {
			t.Errorf("%s: IsData(%q) = %v, want %v", tc.path, tc.text, got, tc.want)
		}
	}
}
