# Quick start: `make test` and `make demo` work on a fresh Debian/Ubuntu machine (they install the
# packages below when missing, configure build/, build, then run).
BUILD ?= build
JOBS ?= $(shell nproc)
PACKAGES := cmake g++ libfmt-dev libspdlog-dev catch2 libcli11-dev nlohmann-json3-dev libxxhash-dev
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: all deps configure build test demo gpubin clean

all: build

deps:
	@missing=$$(for p in $(PACKAGES); do dpkg -s $$p >/dev/null 2>&1 || echo $$p; done); \
	if [ -n "$$missing" ]; then \
	  echo "installing: $$missing"; \
	  $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq $$missing; \
	fi

$(BUILD)/CMakeCache.txt: | deps
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo

configure: $(BUILD)/CMakeCache.txt

build: configure
	cmake --build $(BUILD) -j$(JOBS)

test: build
	cd $(BUILD) && ctest --output-on-failure

demo: build
	tools/demo.sh $(BUILD)

# Stripped binaries for the device machine (carried there as .gpubin/; see docs/PERF.md).
gpubin: build
	mkdir -p .gpubin
	strip -o .gpubin/moegemv $(BUILD)/moegemv
	strip -o .gpubin/test_runtime $(BUILD)/tests/test_runtime

clean:
	rm -rf $(BUILD) .gpubin
