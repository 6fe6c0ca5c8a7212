const a = 1; a = 2; debugger;
