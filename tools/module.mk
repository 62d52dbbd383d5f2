# The launcher is a script; "building" it places it beside gpuleak-report so
# it finds ../lib/libgpuleak.so exactly as it does when installed.
all: $(BUILD)/bin/gpuleak

$(BUILD)/bin/gpuleak: tools/gpuleak
	@mkdir -p $(@D)
	install -m 0755 $< $@

all: $(BUILD)/lib/python/gpuleak_memory.py
$(BUILD)/lib/python/gpuleak_memory.py: tools/gpuleak_memory.py
	@mkdir -p $(@D)
	install -m 0644 $< $@
