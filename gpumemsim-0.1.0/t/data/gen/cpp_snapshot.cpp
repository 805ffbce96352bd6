// Make t/data/cpp-path.pickle: a memory snapshot written by PyTorch's C++
// path, torch::cuda::_memory_snapshot_pickled() (TorchScript pickler,
// protocol 2, another key order).  Build against the libtorch of a PyTorch
// installation; run on a machine with a CUDA GPU:  cpp_snapshot OUT.pickle
#include <torch/torch.h>
#include <torch/csrc/cuda/memory_snapshot.h>

#include <cstdint>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

int
main(int argc, char **argv)
{
	auto opts = torch::TensorOptions().dtype(torch::kUInt8).device(torch::kCUDA);
	torch::cuda::_record_memory_history(std::optional<std::string>("all"),
	    std::optional<std::string>("alloc"), std::string("python"), SIZE_MAX, false);
	std::vector<torch::Tensor> keep;
	for (int i = 0; i < 8; i++)
		keep.push_back(torch::empty({(i + 1) * 1000003}, opts));
	keep.erase(keep.begin() + 2);
	keep.erase(keep.begin() + 4);
	auto big = torch::empty({24 << 20}, opts);
	big = torch::Tensor();
	auto small = torch::empty({777}, opts);
	std::string bytes = torch::cuda::_memory_snapshot_pickled();
	std::ofstream f(argv[1], std::ios::binary);
	f.write(bytes.data(), (std::streamsize)bytes.size());
	return f.good() ? 0 : 1;
}
