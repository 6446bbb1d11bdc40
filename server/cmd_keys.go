package server

var keyCommands = []command{}
