// Side-by-side driver for qarena benchmarks: solve the position after argv[1]'s moves (columns
// 1..7, as qarena's move strings) strongly with c4's Solver; print one JSON line.
#include <chrono>
#include <fstream>
#include <iostream>
#include <string>
#include "solver/position.h"
#include "solver/solver.h"

int main(int argc, char **argv) {
    std::string moves = argc > 1 ? argv[1] : "";
    Position pos{};
    for (char ch : moves) pos.move(ch - '1');
    Solver solver{};
    auto t0 = std::chrono::steady_clock::now();
    int score = solver.solve_strong(pos);
    auto t1 = std::chrono::steady_clock::now();
    double s = std::chrono::duration<double>(t1 - t0).count();
    // Peak resident memory of this process (the kernel's VmHWM), in kB.
    long peak_kb = 0;
    std::ifstream status("/proc/self/status");
    for (std::string line; std::getline(status, line);)
        if (line.rfind("VmHWM:", 0) == 0) peak_kb = std::stol(line.substr(6));
    std::cout << "{\"moves\": \"" << moves << "\", \"score\": " << score
              << ", \"nodes\": " << solver.get_merged_stats().get_num_nodes()
              << ", \"seconds\": " << s << ", \"peak_rss_kb\": " << peak_kb << "}" << std::endl;
    return 0;
}
