# Test and demo programs: built like users build CUDA programs (real CUDA
# headers, -g, frame pointers), linked against fakecuda.  They find fakecuda
# at run time through LD_LIBRARY_PATH (tests/lib.sh, make demo), exactly as a
# real program finds the real libraries.
FC_DIR = $(BUILD)/fakecuda
TPROG_DIR = $(BUILD)/tests
TEST_PROGS = $(TPROG_DIR)/scenarios $(TPROG_DIR)/driver_scenarios $(TPROG_DIR)/demo_train \
	$(TPROG_DIR)/churn

all: $(TEST_PROGS)

$(TPROG_DIR)/scenarios $(TPROG_DIR)/demo_train $(TPROG_DIR)/churn: $(TPROG_DIR)/%: tests/programs/%.c $(FC_DIR)/libcudart.so | $(BUILD)/.cuda-ok
	@mkdir -p $(@D)
	$(CC) $(PROG_CFLAGS) -pthread -o $@ $< -L$(FC_DIR) -lcudart

$(TPROG_DIR)/driver_scenarios: tests/programs/driver_scenarios.c $(FC_DIR)/libcuda.so | $(BUILD)/.cuda-ok
	@mkdir -p $(@D)
	$(CC) $(PROG_CFLAGS) -o $@ $< -L$(FC_DIR) -lcuda
