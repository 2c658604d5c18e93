from attention.bench.sweep import main

main()
