from referee.oneshot import main

main()
